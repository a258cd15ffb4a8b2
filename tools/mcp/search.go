package mcp

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/ternhq/tern/tools"
)

// DefaultK is how many tools Search returns when asked for none: the few
// a small model still chooses well among.
const DefaultK = 5

// Search starts the servers if they have not started yet and returns at
// most k tools (DefaultK when k ≤ 0) that match query, best first. It
// ranks by BM25 (k1 = 1.2, b = 0.75) over each tool's words: its server's
// name and its own name count twice, then its full description and its
// parameter names. Words are split at case changes and non-letters,
// lower-cased, stripped of common English endings (-s, -es, -ies, -ing,
// -ed) and of filler words ("the", "tool", "please", …). Ties keep catalog
// order, so the same query gives the same tools in the same order. A
// query that matches nothing returns no tools, and so does an empty one.
// Tools of a server that is down for good (stopped after its restart) are
// left out. err says which servers' tools are unavailable, and why.
func (m *Manager) Search(ctx context.Context, query string, k int) ([]tools.Tool, error) {
	err := m.load(ctx)
	if k <= 0 {
		k = DefaultK
	}
	m.mu.Lock()
	if m.index == nil || m.index.n != len(m.catalog) {
		m.index = newBM25(m.catalog)
	}
	idx, cat := m.index, m.catalog
	m.mu.Unlock()

	var out []tools.Tool
	for _, i := range idx.rank(words(query)) {
		if len(out) == k {
			break
		}
		if cat[i].srv.usable() {
			out = append(out, cat[i])
		}
	}
	return out, err
}

// Entry is one tool in the catalog, for listings such as tern doctor's.
type Entry struct {
	Name        string // as the model sees it
	Server      string
	Remote      string // its name on the server
	Description string // as the model sees it
	Tokens      int    // of its wire form, by the counter given
}

// Catalog starts the servers if needed and lists every tool, in catalog
// order. count gives the tokens of a text (budget.Counter.Count); nil
// leaves Tokens zero. err is as for Tools.
func (m *Manager) Catalog(ctx context.Context, count func(string) int) ([]Entry, error) {
	err := m.load(ctx)
	m.mu.Lock()
	cat := slices.Clone(m.catalog)
	m.mu.Unlock()
	out := make([]Entry, len(cat))
	for i, t := range cat {
		out[i] = entry(t, count)
	}
	return out, err
}

func entry(t *RemoteTool, count func(string) int) Entry {
	e := Entry{Name: t.spec.Name, Server: t.srv.cfg.Name, Remote: t.remote, Description: t.spec.Description}
	if count != nil {
		e.Tokens = count(string(t.spec.WireJSON()))
	}
	return e
}

// bm25 is an Okapi BM25 index over the catalog's tools.
type bm25 struct {
	n     int
	docs  []map[string]int // term frequencies per tool
	lens  []int
	avg   float64
	df    map[string]int
	k1, b float64
}

func newBM25(cat []*RemoteTool) *bm25 {
	idx := &bm25{n: len(cat), df: map[string]int{}, k1: 1.2, b: 0.75}
	total := 0
	for _, t := range cat {
		names := words(t.names)
		terms := append(append(slices.Clone(names), names...), words(t.text)...)
		tf := map[string]int{}
		for _, w := range terms {
			tf[w]++
		}
		for w := range tf {
			idx.df[w]++
		}
		idx.docs = append(idx.docs, tf)
		idx.lens = append(idx.lens, len(terms))
		total += len(terms)
	}
	if idx.n > 0 {
		idx.avg = float64(total) / float64(idx.n)
	}
	return idx
}

// rank returns the indexes of the tools that match any query word, best
// first; equal scores keep catalog order.
func (idx *bm25) rank(query []string) []int {
	slices.Sort(query)
	query = slices.Compact(query)
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	for i, tf := range idx.docs {
		score := 0.0
		for _, q := range query {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			df := float64(idx.df[q])
			idf := math.Log(1 + (float64(idx.n)-df+0.5)/(df+0.5))
			norm := idx.k1 * (1 - idx.b + idx.b*float64(idx.lens[i])/idx.avg)
			score += idf * f * (idx.k1 + 1) / (f + norm)
		}
		if score > 0 {
			hits = append(hits, hit{i, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.i
	}
	return out
}

// filler reports whether w says nothing about which tool is meant.
func filler(w string) bool {
	switch w {
	case "a", "an", "the", "to", "of", "for", "in", "on", "and", "or", "with", "from", "by", "at",
		"is", "are", "be", "it", "this", "that", "as", "i", "me", "my", "you", "your", "we", "can",
		"want", "need", "please", "some", "any", "all", "tool", "tools", "use", "using", "mcp", "server":
		return true
	}
	return false
}

// words splits text into the terms Search compares.
func words(text string) []string {
	var out []string
	for w := range strings.SplitSeq(snake(text), "_") {
		if w == "" || filler(w) {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips the commonest English endings, so "issues" finds "issue"
// and "created" finds "create". It is deliberately crude: both sides of a
// comparison go through it, so it only has to be consistent.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	case len(w) > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "sses")):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		w = w[:len(w)-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1] // "create", "created", "creating" → "creat"
	}
	return w
}
