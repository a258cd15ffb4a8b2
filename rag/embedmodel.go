package rag

import (
	"context"
	"strings"
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

// EmbedModel is an embedding model as tern uses it: the server's model
// and the task prefixes its texts get.
type EmbedModel struct {
	Name       string
	Doc, Query string
}

// NewEmbedModel returns the model named name ("nomic-embed-text",
// "nomic-embed-text:latest", "mxbai-embed-large:335m").
func NewEmbedModel(name string) EmbedModel {
	name = strings.TrimSuffix(strings.TrimSpace(name), ":latest")
	base, _, _ := strings.Cut(name, ":")
	p := taskPrefixes[base[strings.LastIndexByte(base, '/')+1:]]
	return EmbedModel{Name: name, Doc: p.doc, Query: p.query}
}

// ParseEmbedKey reads what an index recorded as its model.
func ParseEmbedKey(key string) EmbedModel {
	name, prefixed := strings.CutSuffix(key, prefixedMark)
	m := NewEmbedModel(name)
	if !prefixed {
		m.Doc, m.Query = "", ""
	}
	return m
}

// Key is what the index records as the model of its vectors, and what
// index and rag name the model by.
func (m EmbedModel) Key() string {
	if m.Doc != "" || m.Query != "" {
		return m.Name + prefixedMark
	}
	return m.Name
}

// Prefixed embeds with a server that knows models by name for index and
// rag, which know them by key: the texts get the model's task prefix for
// documents or, with Query, for queries.
type Prefixed struct {
	Server Embedder
	Query  bool
}

// Embed embeds inputs with the model key names.
func (p Prefixed) Embed(ctx context.Context, key string, inputs []string) ([][]float32, error) {
	m := ParseEmbedKey(key)
	prefix := m.Doc
	if p.Query {
		prefix = m.Query
	}
	if prefix != "" {
		texts := make([]string, len(inputs))
		for i, t := range inputs {
			texts[i] = prefix + t
		}
		inputs = texts
	}
	return p.Server.Embed(ctx, m.Name, inputs)
}
