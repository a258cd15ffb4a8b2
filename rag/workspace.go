package rag

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ternhq/tern/index"
)

// ErrNoIndex: the workspace has no index yet.
var ErrNoIndex = errors.New("this repository has no index yet: run `tern index` first")

// Workspace is a workspace's code index as tern search, the agent's
// search_code tool and RAG, and the TUI use it. It opens .tern/index.db
// only when the file exists: nothing but an update creates one. Its
// methods are safe for concurrent use; its fields are set before the
// first search.
type Workspace struct {
	// Root is the workspace's root directory.
	Root string
	// Embedder embeds queries; nil makes every search lexical.
	Embedder Embedder
	// Model is the embedding model's key queries are embedded with when
	// the index has no vectors yet (search then says so); QueryModel,
	// when set, is used instead of the index's own model.
	Model, QueryModel string

	mu     sync.Mutex
	ix     *index.Index
	ret    *Retriever
	retKey string
	// noted remembers which notes the user has had, to say each once.
	noted map[string]bool
}

// NewWorkspace returns the code index of the workspace at root.
func NewWorkspace(root string, emb Embedder, model string) *Workspace {
	return &Workspace{Root: root, Embedder: emb, Model: model, noted: map[string]bool{}}
}

// DBPath is where the index lives.
func (w *Workspace) DBPath() string {
	path, _ := index.Path(w.Root)
	return path
}

// Languages lists the languages of the indexed files, the most files
// first; ErrNoIndex when there is no index.
func (w *Workspace) Languages(ctx context.Context) ([]index.LangCount, error) {
	ix, err := w.Open(ctx, false)
	if err != nil {
		return nil, err
	}
	return ix.Languages(ctx)
}

// Exists reports whether the workspace has an index file.
func (w *Workspace) Exists() bool {
	_, exists := index.Path(w.Root)
	return exists
}

// Open returns the open index. Without create, a missing index is
// ErrNoIndex.
func (w *Workspace) Open(ctx context.Context, create bool) (*index.Index, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ix != nil {
		return w.ix, nil
	}
	if !create && !w.Exists() {
		return nil, ErrNoIndex
	}
	ix, err := index.Open(ctx, w.Root)
	if err != nil {
		return nil, IndexProblem(err)
	}
	w.ix = ix
	return ix, nil
}

// Close closes the index, if it was opened.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ix == nil {
		return nil
	}
	err := w.ix.Close()
	w.ix, w.ret = nil, nil
	return err
}

// IndexProblem words the index's errors for the user: a damaged or
// foreign database says how to rebuild it.
func IndexProblem(err error) error {
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

// Available reports whether the search_code tool can be offered: the
// workspace has an index that opens. notice says why not when the index
// is there but broken.
func (w *Workspace) Available(ctx context.Context) (ok bool, notice string) {
	if !w.Exists() {
		return false, ""
	}
	if _, err := w.Open(ctx, false); err != nil {
		return false, fmt.Sprintf("search_code is not offered: %v", err)
	}
	return true, ""
}

// note returns text the first time it is given, "" after.
func (w *Workspace) note(text string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if text == "" || w.noted[text] {
		return ""
	}
	w.noted[text] = true
	return text
}

// retriever returns a retriever over the index whose queries are embedded
// with the model of the index's vectors (or the configured one when it has
// none yet; the search then says so).
func (w *Workspace) retriever(ctx context.Context) (*Retriever, error) {
	ix, err := w.Open(ctx, false)
	if err != nil {
		return nil, err
	}
	key, _, err := ix.Embedding(ctx)
	if err != nil {
		return nil, IndexProblem(err)
	}
	if key == "" {
		key = w.Model
	}
	if w.QueryModel != "" {
		key = w.QueryModel
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ret == nil || w.retKey != key {
		w.ret, w.retKey = New(ix, w.Embedder, key), key
	}
	return w.ret, nil
}

// Search searches the index. With refresh, files changed since the last
// update are re-read first (lexically: their new chunks have no vectors
// until the next `tern index`), so that the agent finds what it has just
// written.
func (w *Workspace) Search(ctx context.Context, query string, opts Options, refresh bool) (Result, error) {
	r, err := w.retriever(ctx)
	if err != nil {
		return Result{}, err
	}
	if refresh {
		w.refresh(ctx)
	}
	res, err := r.Search(ctx, query, opts)
	return res, IndexProblem(err)
}

// refresh brings the index in line with the files, lexically. It is best
// effort: a busy or failing update leaves the search to the index as it is.
func (w *Workspace) refresh(ctx context.Context) {
	if ix, err := w.Open(ctx, false); err == nil {
		_, _ = ix.Update(ctx, index.Options{})
	}
}

// SearchCode serves the agent's search_code tool: hits packed within
// budget bytes, and a few words on what was found.
func (w *Workspace) SearchCode(ctx context.Context, query string, k int, pathPrefix string, budget int) (string, string, error) {
	res, err := w.Search(ctx, query, Options{K: k, PathPrefix: pathPrefix}, true)
	if errors.Is(err, ErrNoIndex) {
		return "", "", errors.New("the repository has no index; the user can build one with `tern index`")
	}
	if err != nil {
		return "", "", err
	}
	text := Pack(res.Hits, budget, Bytes{})
	shown := len(Packed(res.Hits, text))
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

// PromptRetriever serves the agent's RAG from a workspace: the code that
// matches a prompt, packed within a token budget.
type PromptRetriever struct {
	Code    *Workspace
	Counter Counter
}

// Retrieve returns the code for query within budget tokens, and a notice
// saying what was added (or why nothing was).
func (r PromptRetriever) Retrieve(ctx context.Context, query string, budget int) (string, string, error) {
	if !r.Code.Exists() {
		return "", r.Code.note("RAG is on, but this repository has no index yet: run `tern index` (or /index in the TUI)"), nil
	}
	res, err := r.Code.Search(ctx, query, Options{K: 2 * PromptHits}, true)
	if err != nil {
		return "", "", err
	}
	res.Hits = ForPrompt(res.Hits)
	var notes []string
	if res.Lexical {
		if n := r.Code.note("RAG: " + res.Why); n != "" {
			notes = append(notes, n)
		}
	}
	text := Pack(res.Hits, budget, r.Counter)
	if text == "" {
		return "", strings.Join(notes, "; "), nil
	}
	var refs []string
	for _, h := range Packed(res.Hits, text) {
		refs = append(refs, Ref(h))
	}
	added := fmt.Sprintf("RAG: added %s from the repository (%d tokens): %s",
		plural(len(refs), "snippet", "snippets"), r.Counter.Count(text), strings.Join(refs, ", "))
	return text, strings.Join(append([]string{added}, notes...), "; "), nil
}
