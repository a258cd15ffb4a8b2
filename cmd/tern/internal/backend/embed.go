package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/rag"
)

// Embedder adapts the embedding server to the Embedder interfaces of
// index and rag (rag.Prefixed: the model they name is a key, and texts
// get the model's task prefix for documents or, when Query is set, for
// queries), with its errors worded for the user (EmbedError).
type Embedder struct {
	Client EmbedServer
	Query  bool
	// Wait bounds a query's embedding; 0 means queryWait.
	Wait time.Duration
}

// queryWait bounds the embedding of a search's query, loading the
// embedding model included: a server that does not answer sends the
// search lexical in seconds instead of hanging it.
const queryWait = 30 * time.Second

// errQueryWait is the cause a query's embedding is cut for.
var errQueryWait = errors.New("no answer")

// Embed embeds inputs with the model key names; a query waits at most
// queryWait.
func (e Embedder) Embed(ctx context.Context, key string, inputs []string) ([][]float32, error) {
	wait := cmp.Or(e.Wait, queryWait)
	if e.Query {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, wait, errQueryWait)
		defer cancel()
	}
	vecs, err := rag.Prefixed{Server: e.Client, Query: e.Query}.Embed(ctx, key, inputs)
	if err != nil {
		msg := embedProblemOf(e.Client, err, rag.ParseEmbedKey(key).Name)
		if context.Cause(ctx) == errQueryWait {
			err = models.ErrNoAnswer
			msg = fmt.Sprintf("the server at %s did not answer within %s", e.Client.Host(), wait)
		}
		return nil, EmbedError{err: err, msg: msg}
	}
	return vecs, nil
}

// EmbedError is a failed embedding request, worded for the user.
type EmbedError struct {
	err error
	msg string
}

func (e EmbedError) Error() string { return e.msg }
func (e EmbedError) Unwrap() error { return e.err }

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

// CheckEmbed asks the server whether model can embed. It returns "" when
// it can, else why not, with the fix.
func CheckEmbed(ctx context.Context, server EmbedServer, m rag.EmbedModel) string {
	if oc, ok := server.(*openai.Client); ok {
		return checkEmbedOpenAI(ctx, oc, m)
	}
	client, _ := server.(*ollama.Client)
	if client == nil {
		return "the Ollama host is not valid"
	}
	ctx, cancel := context.WithTimeout(ctx, embedCheckTimeout)
	defer cancel()
	info, err := client.Show(ctx, m.Name)
	switch {
	case err == nil && len(info.Capabilities) > 0 && !info.Has(models.CapEmbedding):
		return fmt.Sprintf("%s is not an embedding model (set --embed-model or embed_model to one, such as nomic-embed-text)", m.Name)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("Ollama at %s did not answer within %s", client.Host(), embedCheckTimeout)
	case err != nil:
		return embedProblem(err, client.Host(), m.Name)
	}
	return ""
}
