package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestSearchCodeToolThroughAsk(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "No index, no search_code."})
	f.mustTern("ask", "hi")
	if names := toolNames(f.srv.Requests()[0]); slices.Contains(names, "search_code") {
		t.Errorf("search_code is offered without an index: %v", names)
	}

	f.mustTern("index")
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "search_code", Args: `{"query":"where is a bill added up"}`}}},
		ollamatest.Reply{Content: "In calc/total.go."},
	)
	out, errOut := f.mustTern("ask", "where is the bill total computed?")
	if out != "In calc/total.go.\n" {
		t.Errorf("stdout = %q", out)
	}
	reqs := f.srv.Requests()
	first, second := reqs[len(reqs)-2], reqs[len(reqs)-1]
	want := tierNames(t, 0, true)
	if names := toolNames(first); !slices.Equal(names, want) {
		t.Errorf("tier-0 tools = %v, want %v", names, want)
	}
	result := second.Messages[len(second.Messages)-1]
	if result.Role != "tool" || result.ToolName != "search_code" ||
		!strings.Contains(result.Content, "calc/total.go:3-10 (function Total)") || !strings.Contains(result.Content, "sum += x") {
		t.Errorf("search_code result:\n%+v", result)
	}
	if !strings.Contains(errOut, `▸ search_code {"query":"where is a bill added up"}`) || !strings.Contains(errOut, `✓ search_code "where is a bill added up":`) {
		t.Errorf("stderr:\n%s", errOut)
	}

	// The agent finds what changed since the index was built.
	if err := os.WriteFile(filepath.Join(f.dir, "calc", "tax.go"), []byte("package calc\n\n// AddVAT puts value added tax on a price.\nfunc AddVAT(price int) int { return price * 120 / 100 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "search_code", Args: `{"query":"value added tax","path":"calc"}`}}},
		ollamatest.Reply{Content: "AddVAT."},
	)
	f.mustTern("ask", "where is tax added?")
	reqs = f.srv.Requests()
	if result := reqs[len(reqs)-1].Messages; !strings.Contains(result[len(result)-1].Content, "calc/tax.go:3-4 (function AddVAT)") {
		t.Errorf("search_code did not see the new file:\n%s", result[len(result)-1].Content)
	}

	// tern prompt shows the tool, and tier 0 stays within its budget.
	out, _ = f.mustTern("prompt")
	if !strings.Contains(out, `"name":"search_code"`) {
		t.Error("tern prompt does not show search_code with an index")
	}
	if n := promptTokens(t, out, "request at tier 0"); n > 1000 {
		t.Errorf("the tier-0 request with search_code is %d tokens, over 1,000", n)
	}
}

// retrievedMessage returns the user message of a request that carries
// retrieved code, or "".
func retrievedMessage(req api.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" && strings.HasPrefix(m.Content, "Code from this repository") {
			return m.Content
		}
	}
	return ""
}

func TestRAGThroughAsk(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "Without an index."})
	_, errOut := f.mustTern("ask", "--rag", "how is a bill added up?")
	if !strings.Contains(errOut, "RAG is on, but this repository has no index yet: run `tern index`") {
		t.Errorf("stderr:\n%s", errOut)
	}
	f.mustTern("index")

	f.srv.Script(ollamatest.Reply{Content: "Off."})
	f.mustTern("ask", "how is a bill added up?")
	reqs := f.srv.Requests()
	if got := retrievedMessage(reqs[len(reqs)-1]); got != "" {
		t.Errorf("RAG is off by default, but the request carries:\n%s", got)
	}

	f.srv.Script(ollamatest.Reply{Content: "On."})
	_, errOut = f.mustTern("ask", "--rag", "how is a bill added up?")
	reqs = f.srv.Requests()
	req := reqs[len(reqs)-1]
	got := retrievedMessage(req)
	if !strings.Contains(got, "calc/total.go:3-10 (function Total)\n```go\n") {
		t.Fatalf("with --rag the request lacks the matching code:\n%+v", req.Messages)
	}
	last := req.Messages[len(req.Messages)-1]
	if prev := req.Messages[len(req.Messages)-2]; last.Content != "how is a bill added up?" || prev.Content != got {
		t.Errorf("the code does not come just before the question: %q, %q", prev.Content[:40], last.Content)
	}
	c, err := budget.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	// The share of the 12,288-token window, with room for the frame.
	if n := c.Count(got); n > 12288*15/100+64 {
		t.Errorf("retrieved code is %d tokens, over the 15%% share of the window", n)
	}
	if !strings.Contains(errOut, "RAG: added ") || !strings.Contains(errOut, "calc/total.go:3-10") {
		t.Errorf("stderr does not say what RAG added:\n%s", errOut)
	}

	// The config turns it on too, and rag_share sizes it.
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("rag = true\nrag_share = 0.05\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(ollamatest.Reply{Content: "Config."})
	f.mustTern("ask", "how is a bill added up?")
	reqs = f.srv.Requests()
	if got := retrievedMessage(reqs[len(reqs)-1]); got == "" || c.Count(got) > 12288*5/100+64 {
		t.Errorf("rag = true, rag_share = 0.05 sent %d tokens of code", c.Count(got))
	}
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("rag_share = 0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := f.tern(t.Context(), "ask", "x"); code != 1 || !strings.Contains(errOut, "rag_share must be between 0.05 and 0.5") {
		t.Errorf("rag_share = 0.9: exit %d: %s", code, errOut)
	}
}
