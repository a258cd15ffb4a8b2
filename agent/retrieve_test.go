package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
)

// fakeRetriever answers every query with the same snippet, cut to the
// budget it is given, and remembers what it was asked.
type fakeRetriever struct {
	mu      sync.Mutex
	queries []string
	budgets []int
	text    string
	note    string
	err     error
}

func (f *fakeRetriever) Retrieve(ctx context.Context, query string, budget int) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, query)
	f.budgets = append(f.budgets, budget)
	return f.text, f.note, f.err
}

const snippet = "calc/total.go:3-5 (func Total)\n```go\nfunc Total(xs []int) int { return sum(xs) }\n```\n"

// userContents lists the contents of a request's user messages.
func userContents(req api.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestRAGAddsCodeBeforeTheQuestion(t *testing.T) {
	ret := &fakeRetriever{text: snippet, note: "RAG: 1 snippet"}
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) {
		c.Retriever, c.RAG, c.NumCtx = ret, true, 4096
	}))
	h.srv.Script(
		ollamatest.Reply{Content: "First answer."},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"hello.txt"}`}}},
		ollamatest.Reply{Content: "Second answer."},
	)
	if err := h.run(t.Context(), "where is Total?"); err != nil {
		t.Fatal(err)
	}
	if err := h.run(t.Context(), "and what does it call?"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := userContents(reqs[0])
	if len(first) != 2 || !strings.Contains(first[0], "func Total(xs []int)") || first[1] != "where is Total?" {
		t.Fatalf("first request's user messages = %q, want the code, then the question", first)
	}
	// The budget is the retrieval share (15% of 4096), less the frame.
	if b := ret.budgets[0]; b <= 0 || b > 615 {
		t.Errorf("retrieval budget = %d tokens, want within 15%% of the 4096-token window", b)
	}
	// The second prompt gets its own code, once, at its own question; the
	// first turn goes back to how it was said.
	second, third := userContents(reqs[1]), userContents(reqs[2])
	want := []string{"where is Total?", "", "and what does it call?"}
	for _, got := range [][]string{second, third} {
		if len(got) != 3 || got[0] != want[0] || !strings.Contains(got[1], "func Total") || got[2] != want[2] {
			t.Errorf("later request's user messages = %q", got)
		}
	}
	if len(ret.queries) != 2 || ret.queries[1] != "and what does it call?" {
		t.Errorf("retrieval ran for %q, want once per prompt", ret.queries)
	}
	// Within a turn, the requests share their whole start: the code is the
	// same bytes at the same place.
	for i, m := range reqs[1].Messages {
		if m.Role != reqs[2].Messages[i].Role || m.Content != reqs[2].Messages[i].Content {
			t.Errorf("message %d changed between two requests of a turn", i)
		}
	}
	if n := len(h.rec.messages); n != 6 {
		t.Errorf("recorded %d messages, want 6: retrieved code is not stored", n)
	}
	if !strings.Contains(noticeTexts(h), "RAG: 1 snippet") {
		t.Errorf("the retriever's note was not shown: %s", noticeTexts(h))
	}
}

func TestRAGOffSendsNoCode(t *testing.T) {
	ret := &fakeRetriever{text: snippet}
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Retriever = ret }))
	h.srv.Script(ollamatest.Reply{Content: "Off."}, ollamatest.Reply{Content: "On."})
	if err := h.run(t.Context(), "where is Total?"); err != nil {
		t.Fatal(err)
	}
	if got := userContents(h.srv.Requests()[0]); len(got) != 1 || len(ret.queries) != 0 {
		t.Errorf("RAG off: user messages %q, retrieval asked %q", got, ret.queries)
	}
	h.agent.SetRAG(true)
	if err := h.run(t.Context(), "where is Total?"); err != nil {
		t.Fatal(err)
	}
	if got := userContents(h.srv.Requests()[1]); len(got) != 3 || !strings.Contains(got[1], "func Total") {
		t.Errorf("after SetRAG(true) the user messages are %q", got)
	}
}

func TestRAGFailureIsAWarning(t *testing.T) {
	ret := &fakeRetriever{err: errors.New("index is busy")}
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Retriever, c.RAG = ret, true }))
	h.srv.Script(ollamatest.Reply{Content: "Fine anyway."})
	if err := h.run(t.Context(), "where is Total?"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(noticeTexts(h), "retrieval failed (index is busy)") || h.answer() != "Fine anyway." {
		t.Errorf("notices %q, answer %q", noticeTexts(h), h.answer())
	}
}

func noticeTexts(h *harness) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	for _, e := range h.events {
		if n, ok := e.(Notice); ok {
			b.WriteString(n.Text + "\n")
		}
	}
	return b.String()
}
