package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// subStoreRecorder is a memRecorder that also keeps subagent messages.
type subStoreRecorder struct {
	memRecorder
	sub map[string][]models.Message
}

func (r *subStoreRecorder) AppendSubMessage(_ context.Context, _, callID string, m models.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sub[callID] = append(r.sub[callID], m)
	return nil
}

func newExplorerHarness(t *testing.T, cfg ExploreConfig) (*Explorer, *ollamatest.Server, *subStoreRecorder) {
	t.Helper()
	h := newHarness(t, ollamatest.Qwen3())
	ws, err := tools.NewWorkspace(h.root)
	if err != nil {
		t.Fatal(err)
	}
	client, err := ollama.New(h.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	rec := &subStoreRecorder{sub: map[string][]models.Message{}}
	cfg.SessionID, cfg.Model, cfg.NumCtx, cfg.System = "s1", "qwen3:8b", 8192, "You are a test."
	return NewExplorer(cfg, client, tools.NewSet(tools.ReadOnlyTools(ws)...), rec, counter(t)), h.srv, rec
}

// TestExploreOutOfTurns: a subagent that reaches its turn limit still
// reading is asked, without tools, for the report of what it found.
func TestExploreOutOfTurns(t *testing.T) {
	ex, srv, rec := newExplorerHarness(t, ExploreConfig{MaxTurns: 2})
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"hello.txt"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"b.txt"}`}}},
		ollamatest.Reply{Content: "hello.txt:1 — a greeting"},
	)
	var news []tools.Progress
	rep, err := ex.Explore(t.Context(), tools.ExploreTask{Task: "what do the files say", CallID: "call_3",
		Progress: func(p tools.Progress) { news = append(news, p) }})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || len(reqs[2].Tools) != 0 || len(reqs[0].Tools) == 0 {
		t.Fatalf("%d requests; the last offers %d tools (want 3 requests, the last with none)", len(reqs), len(reqs[len(reqs)-1].Tools))
	}
	if !strings.Contains(reqs[2].Messages[len(reqs[2].Messages)-1].Content, "Stop exploring now") {
		t.Errorf("the last request does not ask for the report")
	}
	if rep.Text != "hello.txt:1 — a greeting" || rep.Calls != 2 || rep.Turns != 3 || rep.Tokens == 0 || !strings.Contains(rep.Note, "turn limit") {
		t.Errorf("report = %+v", rep)
	}
	if len(news) == 0 || news[len(news)-1].Tokens == 0 {
		t.Errorf("progress = %+v", news)
	}
	if n := len(rec.sub["call_3"]); n != 7 { // task, 2×(call, result), final ask, report
		t.Errorf("%d subagent messages stored, want 7", n)
	}
	if len(rec.messages) != 0 {
		t.Errorf("the subagent wrote %d messages to the session history", len(rec.messages))
	}
	if len(rec.turns) != 3 || !strings.HasPrefix(rec.turns[0].DoneReason, "explore ") || !strings.HasPrefix(rec.calls[0].CallID, "call_3/") {
		t.Errorf("turns %+v, calls %+v", rec.turns, rec.calls)
	}
}

// TestExploreReportCap: a long report is cut to the cap by whole lines,
// and the cut is said.
func TestExploreReportCap(t *testing.T) {
	ex, srv, _ := newExplorerHarness(t, ExploreConfig{ReportTokens: 60})
	long := strings.Repeat("a.go:1 — a finding that goes on for a while\n", 30)
	srv.Script(ollamatest.Reply{Content: long})
	rep, err := ex.Explore(t.Context(), tools.ExploreTask{Task: "x", CallID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if n := counter(t).Count(rep.Text); n > 60 || !strings.HasSuffix(rep.Text, "(report cut to about 60 tokens)") || !strings.HasPrefix(rep.Text, "a.go:1") {
		t.Errorf("report of %d tokens:\n%s", n, rep.Text)
	}
	// The subagent's window is a share of the session's, never below the floor.
	if w := ex.window(); w != 4096 {
		t.Errorf("window = %d, want half of 8192", w)
	}
}

// fixedExplorer answers every explore call with the same report.
type fixedExplorer struct{ report string }

func (f fixedExplorer) Explore(context.Context, tools.ExploreTask) (tools.ExploreReport, error) {
	return tools.ExploreReport{Text: f.report, Turns: 3, Calls: 5, Tokens: 9000}, nil
}

// TestExploreReportIsToolOutput: in the calling agent's window, a report
// is counted and compacted like any other tool output: it costs what it
// weighs in the budget, and once old it is the first thing pruned to a
// stub that says the call can be made again.
func TestExploreReportIsToolOutput(t *testing.T) {
	var report strings.Builder
	for i := range 40 {
		fmt.Fprintf(&report, "store%d.go:%d — load%d reads a record from the table of part %d\n", i%5, i+3, i, i%5)
	}
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, ollamatest.Qwen3(),
		withTools(tools.NewExplore(ws, fixedExplorer{report.String()})),
		withConfig(func(c *Config) { c.NumCtx, c.CompactAt = 4096, 0.5 }))
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "explore", Args: `{"task":"where are records loaded"}`}}},
		ollamatest.Reply{Content: "By loadN."},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "explore", Args: `{"task":"where are records saved"}`}}},
		ollamatest.Reply{Content: "Nowhere."},
		ollamatest.Reply{Content: "Yes."},
	)
	if err := h.run(t.Context(), "where are records loaded?"); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(h.agent.history, func(m models.Message) bool { return m.ToolName == "explore" })
	if i < 0 || h.agent.costs[i] != counter(t).MessageTokens(h.agent.history[i]) || h.agent.costs[i] < 500 {
		t.Fatalf("the report is not in the history at its cost (index %d)", i)
	}
	before := h.agent.Plan().History
	if err := h.run(t.Context(), "and saved?"); err != nil {
		t.Fatal(err)
	}
	if grown := h.agent.Plan().History - before; grown < h.agent.costs[i] {
		t.Errorf("the history grew by %d tokens with a second report of %d", grown, h.agent.costs[i])
	}
	if err := h.run(t.Context(), "is that all?"); err != nil {
		t.Fatal(err)
	}
	if !hasNotice(h, "compacted") {
		t.Fatal("no compaction")
	}
	last := h.srv.Requests()[4].Messages
	var got []string // per explore result: stub or full
	for _, m := range last {
		switch {
		case m.Role != "tool":
		case strings.HasPrefix(m.Content, "[output pruned") && strings.Contains(m.Content, `explore {"task":"where are records loaded"}`):
			got = append(got, "stub")
		case strings.Contains(m.Content, "load39 reads"):
			got = append(got, "full")
		}
	}
	// The older report is pruned first; the newest output is kept, as for
	// any tool.
	if !slices.Equal(got, []string{"stub", "full"}) {
		t.Errorf("explore results after compaction: %v", got)
	}
}

// TestSubagentToolsKeepToReadOnly: of the session's tools, a subagent gets
// the read-only ones, less those the main agent keeps (cfg.MainOnly) and
// request_tools, and none once closed.
func TestSubagentToolsKeepToReadOnly(t *testing.T) {
	tool := func(name string, effect tools.Effect) tools.Tool {
		return &fakeTool{effect: effect, spec: models.ToolSpec{Name: name}}
	}
	session := tools.NewSet(tool("read_file", tools.ReadOnly), tool("explore", tools.ReadOnly), tool("ask_user", tools.ReadOnly),
		tool("request_tools", tools.ReadOnly), tool("edit_file", tools.Writes), tool("mcp_docs_search", tools.ReadOnly))
	sub := &subTools{tb: session, mainOnly: []string{"explore", "ask_user"}}
	var got []string
	for _, t := range sub.All() {
		got = append(got, t.Spec().Name)
	}
	if want := []string{"read_file", "mcp_docs_search"}; !slices.Equal(got, want) {
		t.Errorf("a subagent's tools: %v, want %v", got, want)
	}
	if _, ok := sub.Get("ask_user"); ok {
		t.Error("a subagent can call ask_user")
	}
	if _, ok := sub.Get("read_file"); !ok {
		t.Error("a subagent cannot call read_file")
	}
	sub.closed = true
	if len(sub.All()) != 0 {
		t.Error("a closed subagent still has tools")
	}
	if got := (&subTools{}).All(); got != nil {
		t.Errorf("before UseTools a subagent has tools: %v", got)
	}
}
