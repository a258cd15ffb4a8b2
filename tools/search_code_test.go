package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeSearcher answers with one line per hit it was asked for, within the
// budget, and remembers the call.
type fakeSearcher struct {
	query, prefix string
	k, budget     int
	err           error
	none          bool
}

func (f *fakeSearcher) SearchCode(ctx context.Context, query string, k int, prefix string, budget int) (string, string, error) {
	f.query, f.k, f.prefix, f.budget = query, k, prefix, budget
	if f.err != nil {
		return "", "", f.err
	}
	if f.none {
		return "", "0 hits", nil
	}
	var b strings.Builder
	for i := range k {
		line := fmt.Sprintf("%sfile%d.go:1-3 (func F%d)\n", prefix, i, i)
		if b.Len()+len(line) > budget {
			break
		}
		b.WriteString(line)
	}
	return b.String(), fmt.Sprintf("%d hits", k), nil
}

func TestSearchCode(t *testing.T) {
	ws := newFixture(t)
	s := &fakeSearcher{}
	tool := NewSearchCode(ws, s)
	runCases(t, tool, []toolCase{
		{name: "defaults", args: `{"query":"  run the   loop "}`, summary: `search_code "run the loop": 8 hits`,
			want: []string{"file0.go:1-3 (func F0)", "file7.go"}, notWant: []string{"file8.go"}},
		{name: "k is capped", args: `{"query":"x","k":50}`, want: []string{"file19.go"}, notWant: []string{"file20.go"}},
		{name: "directory", args: `{"query":"x","k":1,"path":"./agent/"}`, want: []string{"agent/file0.go"}},
		{name: "one file", args: `{"query":"x","k":1,"path":"agent/loop.go"}`, want: []string{"agent/loop.gofile0.go"}},
		{name: "root", args: `{"query":"x","k":1,"path":"."}`, want: []string{"\nfile0.go"[1:]}, notWant: []string{"/file0"}},
		{name: "budget", args: `{"query":"x","k":20}`, limit: 100, want: []string{"file0.go"}, notWant: []string{"file5.go"}},
		{name: "outside", args: `{"query":"x","path":"../"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "no query", args: `{"k":3}`, isError: true, want: []string{"query is required"}},
	})
	if s.budget != 100 {
		t.Errorf("the searcher got a budget of %d bytes, want the call's limit", s.budget)
	}

	s.none = true
	r := call(t, tool, `{"query":"nothing like it","path":"agent"}`, 0)
	if r.IsError || !strings.Contains(r.Output, `no code under agent/ matches "nothing like it"`) || !strings.Contains(r.Output, "grep") {
		t.Errorf("no hits: %+v", r)
	}
	s.none, s.err = false, errors.New("the index is damaged")
	if r := call(t, tool, `{"query":"x"}`, 0); !r.IsError || !strings.Contains(r.Output, "the index is damaged") {
		t.Errorf("searcher error: %+v", r)
	}
}
