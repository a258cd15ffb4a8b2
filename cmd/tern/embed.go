package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// Some embedding models were trained to be told what a text is for: a
// document to be found, or a query that looks for one. Retrieval with
// them is measurably better with those prefixes, and vectors made with
// and without them do not mix. taskPrefixes holds them by model name
// (without the tag), from the models' own documentation.
var taskPrefixes = map[string]struct{ doc, query string }{
	"nomic-embed-text":        {"search_document: ", "search_query: "},
	"nomic-embed-text-v2-moe": {"search_document: ", "search_query: "},
	"mxbai-embed-large":       {"", "Represent this sentence for searching relevant passages: "},
	"embeddinggemma":          {"title: none | text: ", "task: search result | query: "},
}

// prefixedMark ends the name an index records for vectors made with task
// prefixes, so that an index never mixes them with plain ones of the same
// model, and the user sees which kind an index holds.
const prefixedMark = " (task prefixes)"

// embedModel is an embedding model as tern uses it: the Ollama model and
// the task prefixes its texts get.
type embedModel struct {
	name       string
	doc, query string
}

// newEmbedModel returns the model named name ("nomic-embed-text",
// "nomic-embed-text:latest", "mxbai-embed-large:335m").
func newEmbedModel(name string) embedModel {
	name = strings.TrimSuffix(strings.TrimSpace(name), ":latest")
	base, _, _ := strings.Cut(name, ":")
	p := taskPrefixes[base[strings.LastIndexByte(base, '/')+1:]]
	return embedModel{name: name, doc: p.doc, query: p.query}
}

// parseEmbedKey reads what an index recorded as its model.
func parseEmbedKey(key string) embedModel {
	name, prefixed := strings.CutSuffix(key, prefixedMark)
	m := newEmbedModel(name)
	if !prefixed {
		m.doc, m.query = "", ""
	}
	return m
}

// key is what the index records as the model of its vectors.
func (m embedModel) key() string {
	if m.doc != "" || m.query != "" {
		return m.name + prefixedMark
	}
	return m.name
}

// embedder adapts the Ollama client to the Embedder interfaces of index
// and rag: the model they name is a key, and the texts get the model's
// task prefix for documents or, when query is set, for queries.
type embedder struct {
	client embedServer
	query  bool
}

func (e embedder) Embed(ctx context.Context, key string, inputs []string) ([][]float32, error) {
	m := parseEmbedKey(key)
	prefix := m.doc
	if e.query {
		prefix = m.query
	}
	if prefix != "" {
		texts := make([]string, len(inputs))
		for i, t := range inputs {
			texts[i] = prefix + t
		}
		inputs = texts
	}
	vecs, err := e.client.Embed(ctx, m.name, inputs)
	if err != nil {
		return nil, embedError{err: err, msg: embedProblemOf(e.client, err, m.name)}
	}
	return vecs, nil
}

// embedError is a failed embedding request, worded for the user.
type embedError struct {
	err error
	msg string
}

func (e embedError) Error() string { return e.msg }
func (e embedError) Unwrap() error { return e.err }

// embedProblem says in words what stops embeddings, and what fixes it.
func embedProblem(err error, host, model string) string {
	switch {
	case errors.Is(err, models.ErrUnreachable):
		return fmt.Sprintf("Ollama is not reachable at %s (start it with `ollama serve`)", host)
	case errors.Is(err, models.ErrModelNotFound):
		return fmt.Sprintf("embedding model %s is not installed (run `ollama pull %s`)", model, model)
	}
	return err.Error()
}

// embedCheckTimeout bounds the question whether embeddings can be made:
// indexing goes on lexically when Ollama does not answer.
const embedCheckTimeout = 5 * time.Second

// checkEmbed asks the server whether model can embed. It returns "" when
// it can, else why not, with the fix.
func checkEmbed(ctx context.Context, server embedServer, m embedModel) string {
	if oc, ok := server.(*openai.Client); ok {
		return checkEmbedOpenAI(ctx, oc, m)
	}
	client, _ := server.(*ollama.Client)
	if client == nil {
		return "the Ollama host is not valid"
	}
	ctx, cancel := context.WithTimeout(ctx, embedCheckTimeout)
	defer cancel()
	info, err := client.Show(ctx, m.name)
	switch {
	case err == nil && len(info.Capabilities) > 0 && !info.Has(models.CapEmbedding):
		return fmt.Sprintf("%s is not an embedding model (set --embed-model or embed_model to one, such as nomic-embed-text)", m.name)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("Ollama at %s did not answer within %s", client.Host(), embedCheckTimeout)
	case err != nil:
		return embedProblem(err, client.Host(), m.name)
	}
	return ""
}
