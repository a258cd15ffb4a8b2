// Package rag retrieves code for prompts and for the search command. It
// combines the index's ranked lexical results with vector similarity,
// drops overlapping and duplicate chunks, caps the hits of one file, keeps
// the hits worth prompt tokens, packs hits under a token budget with
// file and line headers, and draws a repository map that fits a budget.
// Workspace is a workspace's index as tern's commands, its search_code
// tool, RAG and the TUI share it.
//
// Vectors come from the index's SQLite store and are held in memory in a
// chromem-go collection, refreshed when the index changes. Without an
// embedder, or when the index has no vectors of the retriever's model,
// search is lexical and says why.
//
// rag imports index; it must not import agent, session, tools, tui or cmd.
package rag

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ternhq/tern/index"
)

// Embedder turns texts into vectors with the named model. *ollama.Client
// satisfies it.
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
}

// Counter counts the tokens of a text, as the model would see them.
type Counter interface {
	Count(text string) int
}

// Options shape a search. Zero values mean defaults.
type Options struct {
	// K is how many hits to return (default 10).
	K int
	// Lang keeps one language (go, python, …); PathPrefix keeps files
	// whose path starts with it.
	Lang       string
	PathPrefix string
	// Class keeps files of one class: index.ClassCode, ClassTest,
	// ClassDocs, …
	Class string
}

// Hit is one retrieved chunk.
type Hit struct {
	Path               string
	StartLine, EndLine int
	Kind, Symbol, Lang string
	// Score is the fused score: higher is better, comparable only within
	// one search.
	Score float64
	// Preview is a one-line summary: the signature, or the first line.
	Preview string
	Text    string
	// LexicalRank and VectorRank are the hit's 1-based places in the
	// lexical and vector result lists, 0 where it was absent.
	LexicalRank, VectorRank int
}

// Result is the outcome of a search.
type Result struct {
	Hits []Hit
	// Lexical is set when vectors took no part in the search, and Why
	// says why, in words for the user.
	Lexical bool
	Why     string
}

// Retriever searches one index. It is safe for concurrent use.
type Retriever struct {
	ix    *index.Index
	emb   Embedder
	model string

	mu   sync.Mutex // guards vecs while it is refreshed
	vecs vectorSet
}

// New returns a retriever over ix. With a nil embedder, search is lexical;
// otherwise queries are embedded with model, which must be the model the
// index's vectors were built with.
func New(ix *index.Index, emb Embedder, model string) *Retriever {
	return &Retriever{ix: ix, emb: emb, model: model}
}

const (
	// pool is how many candidates each list contributes per wanted hit.
	pool = 4
	// vectorShare is the weight of vector similarity against the lexical
	// score when both take part.
	vectorShare = 0.4
)

// Search returns the chunks that best match query.
func (r *Retriever) Search(ctx context.Context, query string, opts Options) (Result, error) {
	k := cmp.Or(opts.K, 10)
	f := index.Filter{Lang: opts.Lang, PathPrefix: opts.PathPrefix, Class: opts.Class}.Clean()
	n := max(pool*k, 40)
	// The two searches are independent; run them side by side.
	var (
		vec    []index.Chunk
		why    string
		vecErr error
		wg     sync.WaitGroup
	)
	var sims []float32
	wg.Go(func() { vec, sims, why, vecErr = r.vectorSearch(ctx, query, f, n) })
	lex, err := r.ix.Lexical(ctx, query, f, n)
	wg.Wait()
	if err = cmp.Or(err, vecErr); err != nil {
		return Result{}, err
	}
	if f.Class != "" { // the vector store filters by language and path only
		for i := len(vec) - 1; i >= 0; i-- {
			if !f.Keeps(vec[i].Path, vec[i].Lang) {
				vec = slices.Delete(vec, i, i+1)
				sims = slices.Delete(sims, i, i+1)
			}
		}
	}
	var res Result
	if why != "" {
		res.Lexical, res.Why = true, why
	}
	res.Hits = fuse(query, lex, vec, sims, k)
	return res, nil
}

// candidate is a chunk with its places in both lists.
type candidate struct {
	index.Chunk
	lex, vec int
	score    float64
}

// fuse merges the lexical list, ranked and scored by the index, with the
// vector list and its similarities: a convex combination of the lexical
// score and the similarity, each scaled by the best of its list, the
// similarity weighed by the file's class as the index weighs lexical
// scores. It drops duplicates, keeps at most a share of k from any one
// file (unless nothing else is left), and returns the best k.
func fuse(query string, lex, vec []index.Chunk, sims []float32, k int) []Hit {
	byID := map[int64]*candidate{}
	var all []*candidate
	get := func(c index.Chunk) *candidate {
		cand := byID[c.ID]
		if cand == nil {
			cand = &candidate{Chunk: c}
			byID[c.ID] = cand
			all = append(all, cand)
		}
		return cand
	}
	lexShare := 1.0
	if len(vec) > 0 {
		lexShare = 1 - vectorShare
	}
	var top float64
	for _, c := range lex {
		top = max(top, c.Score)
	}
	for i, c := range lex {
		cand := get(c)
		cand.lex = i + 1
		if top > 0 {
			cand.score += lexShare * c.Score / top
		}
	}
	if len(vec) > 0 {
		var hi float32
		for _, s := range sims {
			hi = max(hi, s)
		}
		for i, c := range vec {
			cand := get(c)
			cand.vec = i + 1
			norm := 1.0
			if i < len(sims) && hi > 0 {
				norm = float64(max(sims[i], 0) / hi)
			}
			cand.score += vectorShare * norm * index.ClassWeight(query, c.Path, c.Lang)
		}
	}
	slices.SortStableFunc(all, func(a, b *candidate) int { return cmp.Compare(b.score, a.score) })
	// At most a tenth of k (and two) hits come from one file, so
	// that the hits cover more files.
	perFile := max(2, k/10)
	count := map[string]int{}
	var hits, over []Hit
	for _, c := range all {
		if len(hits) == k {
			break
		}
		if duplicate(hits, c) || duplicate(over, c) {
			continue
		}
		h := Hit{
			Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine,
			Kind: c.Kind, Symbol: c.Symbol, Lang: c.Lang,
			Score: c.score, Preview: preview(c.Chunk), Text: c.Text,
			LexicalRank: c.lex, VectorRank: c.vec,
		}
		if count[c.Path] >= perFile {
			over = append(over, h)
			continue
		}
		count[c.Path]++
		hits = append(hits, h)
	}
	return append(hits, over[:min(len(over), k-len(hits))]...)
}

// duplicate reports whether c overlaps a kept hit of the same file, or is
// another part of a symbol already kept.
func duplicate(hits []Hit, c *candidate) bool {
	for _, h := range hits {
		if h.Path != c.Path {
			continue
		}
		if c.StartLine <= h.EndLine && h.StartLine <= c.EndLine {
			return true
		}
		if c.Symbol != "" && c.Symbol == h.Symbol && c.Kind == h.Kind && c.Kind != "code" && c.Kind != "text" && c.Kind != "section" {
			return true
		}
	}
	return false
}

// lastName is the innermost name of a qualified symbol: Server.ServeHTTP
// gives ServeHTTP, Matrix::at gives at, "DefaultPort, …" gives DefaultPort.
func lastName(symbol string) string {
	symbol, _, _ = strings.Cut(symbol, ",")
	if i := strings.LastIndexAny(symbol, ".:#"); i >= 0 {
		symbol = symbol[i+1:]
	}
	return strings.TrimSpace(symbol)
}

// preview is the signature of a chunk, or its first line with words.
func preview(c index.Chunk) string {
	line := c.Sig
	if line == "" {
		for l := range strings.Lines(c.Text) {
			if t := strings.TrimSpace(l); t != "" && strings.ContainsFunc(t, isWordRune) {
				line = t
				break
			}
		}
	}
	if r := []rune(line); len(r) > 120 {
		line = string(r[:119]) + "…"
	}
	return line
}

func isWordRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f
}

// vectorSearch returns the n chunks nearest to the query's embedding, or
// a reason (for the user) why vectors cannot take part.
func (r *Retriever) vectorSearch(ctx context.Context, query string, f index.Filter, n int) ([]index.Chunk, []float32, string, error) {
	if r.emb == nil {
		return nil, nil, "no embedding model is configured, so search is lexical only", nil
	}
	// The model is checked first: loading vectors that cannot be used
	// would cost seconds on a large index.
	model, _, err := r.ix.Embedding(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	if model != "" && model != r.model {
		return nil, nil, fmt.Sprintf("the index was embedded with %s, not %s (run tern index to re-embed), so search is lexical only", model, r.model), nil
	}
	// When the index holds vectors, the query is embedded while they load:
	// the first search of a session loads them all (about a second on a
	// large index) and the server may have to load the embedding model.
	var (
		qv        [][]float32
		embedErr  error
		embedding sync.WaitGroup
	)
	embed := func() { qv, embedErr = r.emb.Embed(ctx, r.model, []string{query}) }
	if model != "" {
		ectx, cancel := context.WithCancel(ctx)
		defer embedding.Wait() // after cancel: deferred calls run last first
		defer cancel()
		embed = func() { qv, embedErr = r.emb.Embed(ectx, r.model, []string{query}) }
		embedding.Go(embed)
	}
	r.mu.Lock()
	err = r.vecs.refresh(ctx, r.ix)
	col, dim := r.vecs.col, r.vecs.dim
	loaded := r.vecs.model // an update may have re-embedded meanwhile
	r.mu.Unlock()
	if err != nil {
		return nil, nil, "", err
	}
	if col == nil || col.Count() == 0 || loaded != r.model {
		return nil, nil, "the index has no embeddings yet (run tern index with an embedding model), so search is lexical only", nil
	}
	if model == "" { // vectors arrived since the model was read
		embed()
	}
	embedding.Wait()
	err = embedErr
	if err == nil && len(qv) != 1 {
		err = fmt.Errorf("got %d vectors for one query", len(qv))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, "", ctx.Err()
		}
		return nil, nil, fmt.Sprintf("embedding the query failed (%v), so search is lexical only", err), nil
	}
	if len(qv[0]) != dim {
		return nil, nil, fmt.Sprintf("%s returned %d numbers per vector, the index holds %d (run tern index to re-embed), so search is lexical only", r.model, len(qv[0]), dim), nil
	}
	ids, sims, err := nearest(ctx, col, qv[0], f, n)
	if err != nil {
		return nil, nil, "", err
	}
	chunks, err := r.ix.Chunks(ctx, ids)
	if len(chunks) != len(ids) { // some vanished: keep the similarities in step
		bySim := make(map[int64]float32, len(ids))
		for i, id := range ids {
			bySim[id] = sims[i]
		}
		sims = sims[:0]
		for _, c := range chunks {
			sims = append(sims, bySim[c.ID])
		}
	}
	return chunks, sims, "", err
}
