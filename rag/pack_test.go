package rag

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/index/indextest"
)

func packHits() []Hit {
	body := func(name string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "func %s() {\n", name)
		for i := range n {
			fmt.Fprintf(&b, "\tstep%d()\n", i)
		}
		b.WriteString("}")
		return b.String()
	}
	return []Hit{
		{Path: "a.go", StartLine: 10, EndLine: 16, Kind: "function", Symbol: "A", Lang: "go", Text: body("A", 5)},
		{Path: "b.go", StartLine: 1, EndLine: 42, Kind: "function", Symbol: "B", Lang: "go", Text: body("B", 40)},
		{Path: "c.go", StartLine: 5, EndLine: 7, Kind: "function", Symbol: "C", Lang: "go", Text: body("C", 1)},
	}
}

func TestPack(t *testing.T) {
	var counter indextest.Counter
	hits := packHits()
	whole := Pack(hits, 100000, counter)
	for _, want := range []string{"a.go:10-16 (function A)\n```go\nfunc A() {", "b.go:1-42 (function B)", "c.go:5-7 (function C)"} {
		if !strings.Contains(whole, want) {
			t.Errorf("pack lacks %q:\n%s", want, whole)
		}
	}

	first := counter.Count(renderHit(hits[0], hits[0].EndLine, hits[0].Text))
	cut := Pack(hits, first+60, counter)
	if !strings.Contains(cut, "a.go:10-16") || !strings.Contains(cut, "b.go:1-") || strings.Contains(cut, "b.go:1-42") || strings.Contains(cut, "c.go") {
		t.Errorf("with room for A and part of B:\n%s", cut)
	}
	if !strings.Contains(cut, "\n…\n```") {
		t.Errorf("a cut chunk does not say so:\n%s", cut)
	}

	if got := Pack(hits, 10, counter); got != "" {
		t.Errorf("with no room for three lines: %q", got)
	}
	for budget := range 400 {
		if n := counter.Count(Pack(hits, budget, counter)); n > budget {
			t.Fatalf("budget %d: pack takes %d tokens", budget, n)
		}
	}
}

func TestPackFencesAroundBackticks(t *testing.T) {
	h := Hit{Path: "README.md", StartLine: 1, EndLine: 3, Kind: "section", Symbol: "Usage", Lang: "markdown", Text: "Run:\n```\nmake\n```"}
	out := Pack([]Hit{h}, 1000, indextest.Counter{})
	if !strings.Contains(out, "````markdown\nRun:") || !strings.HasSuffix(out, "```\n````\n\n") {
		t.Errorf("fence collides with the text:\n%s", out)
	}
}

func TestRepoMap(t *testing.T) {
	ix, _ := shop(t, nil, "")
	var counter indextest.Counter
	m, err := RepoMap(t.Context(), ix, 400, counter)
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.Count(m); n > 400 || n < 200 {
		t.Errorf("map of %d tokens for a budget of 400:\n%s", n, m)
	}
	// Cart.Total and ListProducts are used by the server; the cart and
	// the catalog come before files nobody references.
	lines := strings.Split(m, "\n")
	if !strings.HasPrefix(lines[0], "store/") {
		t.Errorf("most referenced file first, got:\n%s", m)
	}
	if !strings.Contains(m, "store/cart.go\n") || !strings.Contains(m, "  func (c *Cart) Total() int\n") {
		t.Errorf("map lacks the cart:\n%s", m)
	}
	small, err := RepoMap(t.Context(), ix, 40, counter)
	if err != nil || counter.Count(small) > 40 || small == "" || !strings.Contains(m, small) {
		t.Errorf("small map is not a part of the large one:\n%s\n(%v)", small, err)
	}
}
