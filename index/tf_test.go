package index

import (
	"maps"
	"slices"
	"testing"
)

func TestEachWordPart(t *testing.T) {
	var got []string
	eachWordPart([]byte("parseURL(x, HTTPServer2) // a retry_count"), func(p []byte) { got = append(got, string(p)) })
	want := []string{"parse", "URL", "HTTP", "Server2", "retry", "count"}
	if !slices.Equal(got, want) {
		t.Errorf("parts %q, want %q", got, want)
	}
	// The words rerank counts are the parts eachWordPart gives.
	for w, plain := range map[string]bool{"aarch64": true, "retry": true, "retry_count": false, "x": false, "café": false} {
		if plainWord(w) != plain {
			t.Errorf("plainWord(%q) = %v", w, !plain)
		}
	}
}

// termCounts counts every occurrence of a query word in a file's chunks,
// in any case and inside identifiers, but not other words of its stem.
func TestTermCountsCountOccurrences(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"retry.go": `package client

// Do retries fn: the backoff delay doubles after each failed attempt.
func (r *Retrier) Do(fn func() error) error {
	delay := r.BaseDelay // the first backoff
	for attempt := 0; attempt < r.Attempts; attempt++ {
		if fn() == nil {
			return nil
		}
		sleep(delay)
		delay *= 2
	}
	return errFailed
}

// Backoff is a backoff policy.
type Backoff int
`,
		"other.go": "package client\n\n// nothing here\nfunc other() {}\n",
	})
	ix := openIndex(t, root)
	update(t, ix, Options{})
	cs, err := ix.corpus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var short []*fileRank
	for _, p := range []string{"retry.go", "other.go"} {
		var id int64
		if err := ix.db.QueryRow(`SELECT id FROM files WHERE path = ?`, p).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if cs.bytes[id] == 0 {
			t.Errorf("%s: no size in the corpus", p)
		}
		short = append(short, &fileRank{id: id})
	}
	words := map[string]float64{"delay": 1, "backoff": 1, "attempt": 1, "failed": 1}
	counts, err := ix.termCounts(t.Context(), short, nil, words)
	if err != nil {
		t.Fatal(err)
	}
	// attempts and errFailed's "Failed" differ: only attempt and Failed
	// as spelt count; BaseDelay holds a delay.
	want := map[string]float64{"delay": 5, "backoff": 5, "attempt": 4, "failed": 2}
	if !maps.Equal(counts[0], want) {
		t.Errorf("retry.go counts %v, want %v", counts[0], want)
	}
	if len(counts[1]) != 0 {
		t.Errorf("other.go counts %v, want none", counts[1])
	}
}

func TestQueryPairs(t *testing.T) {
	got := queryPairs("fix the reference cycle for no-modifiers, a b", 10)
	want := []string{"reference cycle", "no modifiers"}
	if !slices.Equal(got, want) {
		t.Errorf("pairs %q, want %q", got, want)
	}
	if got := queryPairs("one two three four", 2); len(got) != 2 {
		t.Errorf("pairs %q, want 2", got)
	}
}

// Of two files with the same words, the one that says two adjacent query
// words together ranks first.
func TestAdjacentQueryWordsRankTheirPhraseFirst(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a.go": "package m\n\n// Close drops the matcher: each reference to the cache ends a cycle.\nfunc Close() {}\n",
		"b.go": "package m\n\n// Close drops the matcher: the reference cycle to the cache ends each.\nfunc Close() {}\n",
	})
	ix := openIndex(t, root)
	update(t, ix, Options{})
	hits, err := ix.Lexical(t.Context(), "fix reference cycle in the matcher cache", Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if files := distinctFiles(hits); len(files) != 2 || files[0] != "b.go" {
		t.Errorf("files %v, want b.go first", files)
	}
}
