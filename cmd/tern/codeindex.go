package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/rag"
	"github.com/ternhq/tern/tools"
)

// errNoIndex: the workspace has no index yet.
var errNoIndex = errors.New("this repository has no index yet: run `tern index` first")

// codeIndex is the workspace's code index as `tern search`, the agent's
// search_code tool, RAG and the TUI use it. It opens .tern/index.db only
// when the file exists: nothing but an update creates one. Its methods
// are safe for concurrent use.
type codeIndex struct {
	root string
	// client reaches Ollama for embeddings; nil when the host is not
	// valid. want is the configured embedding model; noEmbed turns
	// embeddings off. query, when set, is the model queries are embedded
	// with instead of the index's own (--embed-model on tern search).
	client  embedServer
	want    embedModel
	noEmbed bool
	query   string
	// onWait, when set, hears that another process is updating the
	// index; the update then waits for it (tern index). Without it an
	// update gives up at once (the TUI's /index, refreshes).
	onWait func(holder string)

	mu     sync.Mutex
	ix     *index.Index
	ret    *rag.Retriever
	retKey string
	// noted remembers which notes the user has had, to say each once.
	noted map[string]bool
}

// newCodeIndex returns the index of the workspace at root, as cfg
// configures it.
func newCodeIndex(root string, cfg Config) *codeIndex {
	return &codeIndex{root: root, client: newEmbedServer(cfg), want: newEmbedModel(cfg.EmbedModel), noted: map[string]bool{}}
}

// dbPath is where the index lives.
func (c *codeIndex) dbPath() string { return filepath.Join(c.root, ".tern", "index.db") }

// exists reports whether the workspace has an index file.
func (c *codeIndex) exists() bool {
	_, err := os.Stat(c.dbPath())
	return err == nil
}

// open returns the open index. Without create, a missing index is
// errNoIndex.
func (c *codeIndex) open(ctx context.Context, create bool) (*index.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != nil {
		return c.ix, nil
	}
	if !create && !c.exists() {
		return nil, errNoIndex
	}
	ix, err := index.Open(ctx, c.root)
	if err != nil {
		return nil, indexProblem(err)
	}
	c.ix = ix
	return ix, nil
}

// Close closes the index, if it was opened.
func (c *codeIndex) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix == nil {
		return nil
	}
	err := c.ix.Close()
	c.ix, c.ret = nil, nil
	return err
}

// indexProblem words the index's errors for the user: a damaged or
// foreign database says how to rebuild it.
func indexProblem(err error) error {
	switch {
	case errors.Is(err, index.ErrCorrupt):
		return wordedError{err, "the index .tern/index.db is damaged or is not a tern index: run `tern index --rebuild` to delete it and build it again"}
	case errors.Is(err, index.ErrBusy):
		return wordedError{err, "the index is being updated already (by /index, or another tern); try again when that is done"}
	}
	return err
}

// wordedError is an error shown to the user in other words than its
// cause's, which errors.Is still finds.
type wordedError struct {
	err error
	msg string
}

func (e wordedError) Error() string { return e.msg }
func (e wordedError) Unwrap() error { return e.err }

// toolSearcher returns c for the search_code tool when the workspace has
// an index that opens; otherwise nil, with a notice when it is broken.
func (c *codeIndex) toolSearcher(ctx context.Context) (tools.CodeSearcher, string) {
	if !c.exists() {
		return nil, ""
	}
	if _, err := c.open(ctx, false); err != nil {
		return nil, fmt.Sprintf("search_code is not offered: %v", err)
	}
	return c, ""
}

// note returns text the first time it is given, "" after.
func (c *codeIndex) note(text string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if text == "" || c.noted[text] {
		return ""
	}
	c.noted[text] = true
	return text
}

// retriever returns a retriever over the index whose queries are embedded
// with the model of the index's vectors (or the configured one when it has
// none yet; rag then says so).
func (c *codeIndex) retriever(ctx context.Context) (*rag.Retriever, error) {
	ix, err := c.open(ctx, false)
	if err != nil {
		return nil, err
	}
	key, _, err := ix.Embedding(ctx)
	if err != nil {
		return nil, indexProblem(err)
	}
	if key == "" {
		key = c.want.key()
	}
	if c.query != "" {
		key = c.query
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ret == nil || c.retKey != key {
		var emb rag.Embedder
		if c.client != nil && !c.noEmbed {
			emb = embedder{client: c.client, query: true}
		}
		c.ret, c.retKey = rag.New(ix, emb, key), key
	}
	return c.ret, nil
}

// search searches the index. With refresh, files changed since the last
// update are re-read first (lexically: their new chunks have no vectors
// until the next `tern index`), so that the agent finds what it has just
// written.
func (c *codeIndex) search(ctx context.Context, query string, opts rag.Options, refresh bool) (rag.Result, error) {
	r, err := c.retriever(ctx)
	if err != nil {
		return rag.Result{}, err
	}
	if refresh {
		c.refresh(ctx)
	}
	res, err := r.Search(ctx, query, opts)
	return res, indexProblem(err)
}

// refresh brings the index in line with the files, lexically. It is best
// effort: a busy or failing update leaves the search to the index as it is.
func (c *codeIndex) refresh(ctx context.Context) {
	if ix, err := c.open(ctx, false); err == nil {
		_, _ = ix.Update(ctx, index.Options{})
	}
}

// SearchCode serves the agent's search_code tool: hits packed within
// budget bytes.
func (c *codeIndex) SearchCode(ctx context.Context, query string, k int, pathPrefix string, budget int) (string, string, error) {
	res, err := c.search(ctx, query, rag.Options{K: k, PathPrefix: pathPrefix}, true)
	if errors.Is(err, errNoIndex) {
		return "", "", errors.New("the repository has no index; the user can build one with `tern index`")
	}
	if err != nil {
		return "", "", err
	}
	text := rag.Pack(res.Hits, budget, rag.Bytes{})
	shown := len(rag.Packed(res.Hits, text))
	how := plural(len(res.Hits), "hit", "hits")
	if shown < len(res.Hits) {
		how += fmt.Sprintf(", %d shown", shown)
	}
	if res.Lexical {
		how += ", lexical"
	}
	return text, how, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ragRetriever serves the agent's RAG: the code that matches a prompt,
// packed within a token budget.
type ragRetriever struct {
	code    *codeIndex
	counter rag.Counter
}

func (r ragRetriever) Retrieve(ctx context.Context, query string, budget int) (string, string, error) {
	if !r.code.exists() {
		return "", r.code.note("RAG is on, but this repository has no index yet: run `tern index` (or /index in the TUI)"), nil
	}
	res, err := r.code.search(ctx, query, rag.Options{K: 2 * rag.PromptHits}, true)
	if err != nil {
		return "", "", err
	}
	res.Hits = rag.ForPrompt(res.Hits)
	var notes []string
	if res.Lexical {
		if n := r.code.note("RAG: " + res.Why); n != "" {
			notes = append(notes, n)
		}
	}
	text := rag.Pack(res.Hits, budget, r.counter)
	if text == "" {
		return "", strings.Join(notes, "; "), nil
	}
	var refs []string
	for _, h := range rag.Packed(res.Hits, text) {
		refs = append(refs, rag.Ref(h))
	}
	added := fmt.Sprintf("RAG: added %s from the repository (%d tokens): %s",
		plural(len(refs), "snippet", "snippets"), r.counter.Count(text), strings.Join(refs, ", "))
	return text, strings.Join(append([]string{added}, notes...), "; "), nil
}
