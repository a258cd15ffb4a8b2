package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// tiered is a harness whose toolbox is a disclosure.Set over the real
// tools of every tier, in a workspace holding hello.txt.
type tiered struct {
	*harness
	set  *disclosure.Set
	root string
}

func newTiered(t *testing.T, model ollamatest.Model, start, maxTier disclosure.Tier, ap Approver, cfgs ...func(*Config)) *tiered {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the fixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := tools.CommandTools(ws, nil, tools.CommandPolicy{Allow: []string{"echo *"}})
	if err != nil {
		t.Fatal(err)
	}
	intents, err := disclosure.DefaultIntents()
	if err != nil {
		t.Fatal(err)
	}
	set, err := disclosure.New(disclosure.Config{
		Tools:   [disclosure.NumTiers][]tools.Tool{tools.ReadOnlyTools(ws), tools.EditTools(ws, nil), cmds},
		Start:   start,
		Max:     maxTier,
		Intents: intents,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, client, cfg := fakeServer(t, model)
	for _, f := range cfgs {
		f(&cfg)
	}
	h := &harness{t: t, srv: srv, rec: &memRecorder{}}
	h.agent = New(cfg, client, set, h.rec, ap, counter(t))
	return &tiered{harness: h, set: set, root: root}
}

func toolNamesOf(r api.ChatRequest) []string {
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

func (h *harness) notices() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if n, ok := e.(Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

// assertPrefixStable checks that the tools of each request are a prefix of
// the next request's: the server's prompt cache then survives unlocks.
func assertPrefixStable(t *testing.T, reqs []api.ChatRequest) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		prev, cur := toolNamesOf(reqs[i-1]), toolNamesOf(reqs[i])
		if len(cur) < len(prev) || !slices.Equal(cur[:len(prev)], prev) {
			t.Errorf("request %d tools %v do not extend request %d tools %v", i+1, cur, i, prev)
		}
		for k := range prev {
			if reqs[i].Tools[k].Function.Description != reqs[i-1].Tools[k].Function.Description {
				t.Errorf("request %d changed the description of %s", i+1, prev[k])
			}
		}
		if reqs[i].Messages[0].Content != reqs[i-1].Messages[0].Content {
			t.Errorf("request %d changed the system prompt", i+1)
		}
	}
}

func TestLockedCallGetsGuidanceThenUnlocks(t *testing.T) {
	var asked []Approval
	ap := ApproverFunc(func(_ context.Context, a Approval) (Decision, error) {
		asked = append(asked, a)
		return Decision{Allow: true}, nil
	})
	h := newTiered(t, ollamatest.Qwen3(), 0, 3, ap)
	edit := ollamatest.Call{Name: "edit_file", Args: `{"path":"hello.txt","old_string":"hello","new_string":"goodbye"}`}
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"hello.txt"}`}, edit}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "request_tools", Args: `{"tier":1,"reason":"edit hello.txt"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{edit}},
		ollamatest.Reply{Content: "Changed it."},
	)
	if err := h.run(t.Context(), "what does hello.txt say? make it say goodbye"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if got := toolNamesOf(reqs[0]); !slices.Equal(got, []string{"read_file", "list_dir", "grep", "glob", "request_tools"}) {
		t.Errorf("first request tools = %v, want tier 0 only", got)
	}
	ends := toolEnds(h.harness)
	locked := ends[1]
	if !locked.IsError || !strings.Contains(locked.Output, `edit_file is in tier 1 (edit), which is locked. Call request_tools with {"tier": 1`) {
		t.Errorf("locked call result = %q", locked.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(h.root, "hello.txt")); string(b) == "goodbye from the fixture\n" && len(asked) == 0 {
		t.Fatal("the locked edit ran")
	}
	if !strings.Contains(ends[2].Output, "Unlocked tier 1 (edit): edit_file, write_file") {
		t.Errorf("request_tools result = %q", ends[2].Output)
	}
	if got := toolNamesOf(reqs[2]); !slices.Equal(got[len(got)-2:], []string{"edit_file", "write_file"}) {
		t.Errorf("tools after the unlock = %v, want edit tools appended", got)
	}
	assertPrefixStable(t, reqs)
	if !slices.ContainsFunc(h.notices(), func(n string) bool {
		return strings.Contains(n, "tier 1 (edit) unlocked: edit_file, write_file — the model asked: edit hello.txt")
	}) {
		t.Errorf("notices = %q, want the unlock shown to the user", h.notices())
	}
	if len(asked) != 1 || asked[0].Tool != "edit_file" || !strings.Contains(asked[0].Preview, "+goodbye from the fixture") {
		t.Errorf("approvals = %+v, want one for the real edit with its diff", asked)
	}
	if b, _ := os.ReadFile(filepath.Join(h.root, "hello.txt")); string(b) != "goodbye from the fixture\n" {
		t.Errorf("hello.txt = %q after the approved edit", b)
	}
}

func TestPromptIntentUnlocksBeforeTheFirstRequest(t *testing.T) {
	h := newTiered(t, ollamatest.Qwen3(), 0, 3, nil)
	h.srv.Script(ollamatest.Reply{Content: "ok"})
	if err := h.run(t.Context(), "fix the greeting in hello.txt"); err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(h.srv.Requests()[0]); !slices.Contains(got, "edit_file") || slices.Contains(got, "run_command") {
		t.Errorf("tools = %v, want tier 1 from the word 'fix'", got)
	}
	if n := h.notices(); len(n) != 1 || !strings.Contains(n[0], `the request says "fix"`) {
		t.Errorf("notices = %q", n)
	}
	if h.types()[0] != "notice" {
		t.Errorf("events = %v, want the unlock notice first", h.types())
	}
}

func TestReadOnlySessionStaysReadOnly(t *testing.T) {
	h := newTiered(t, ollamatest.Qwen3(), 0, 0, nil)
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"x.txt","content":"x"}`}}},
		ollamatest.Reply{Content: "I cannot."},
	)
	if err := h.run(t.Context(), "write x.txt"); err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(h.srv.Requests()[0]); slices.Contains(got, "request_tools") || len(got) != 4 {
		t.Errorf("a --max-tier 0 session offers %v", got)
	}
	if end := toolEnds(h.harness)[0]; !strings.Contains(end.Output, "not available: the user limited this session to tier 0") {
		t.Errorf("result = %q", end.Output)
	}
	if _, err := os.Stat(filepath.Join(h.root, "x.txt")); err == nil {
		t.Error("x.txt was written in a read-only session")
	}
}

func TestApprovalOfEditsAndCommands(t *testing.T) {
	tests := []struct {
		name     string
		call     ollamatest.Call
		decision Decision
		asks     int // approvals asked over two identical calls
		ran      bool
		check    func(t *testing.T, a Approval)
	}{
		{name: "edit denied", call: ollamatest.Call{Name: "write_file", Args: `{"path":"new.txt","content":"x\n"}`},
			decision: Decision{Allow: false, Reason: "not now"}, asks: 2,
			check: func(t *testing.T, a Approval) {
				if a.Effect != tools.Writes || !strings.Contains(a.Preview, "+x") || a.Destructive || a.Once {
					t.Errorf("approval = %+v", a)
				}
			}},
		{name: "edit allowed always", call: ollamatest.Call{Name: "write_file", Args: `{"path":"new.txt","content":"x\n"}`},
			decision: Decision{Allow: true, Always: true}, asks: 1, ran: true},
		{name: "destructive asks every time", call: ollamatest.Call{Name: "run_command", Args: `{"command":"rm -rf ./nothing-here"}`},
			decision: Decision{Allow: true, Always: true}, asks: 2, ran: true,
			check: func(t *testing.T, a Approval) {
				if !a.Destructive || a.Why != "deletes files recursively" || !a.Once || !strings.HasPrefix(a.Preview, "$ rm -rf ./nothing-here") {
					t.Errorf("approval = %+v", a)
				}
			}},
		{name: "allowed by config", call: ollamatest.Call{Name: "run_command", Args: `{"command":"echo hi"}`}, asks: 0, ran: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []Approval
			ap := ApproverFunc(func(_ context.Context, a Approval) (Decision, error) {
				asked = append(asked, a)
				return tt.decision, nil
			})
			h := newTiered(t, ollamatest.Qwen3(), 2, 2, ap)
			h.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.Call{tt.call}},
				ollamatest.Reply{ToolCalls: []ollamatest.Call{tt.call}},
				ollamatest.Reply{Content: "done"},
			)
			if err := h.run(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			if len(asked) != tt.asks {
				t.Fatalf("asked %d times, want %d: %+v", len(asked), tt.asks, asked)
			}
			if tt.check != nil {
				tt.check(t, asked[0])
			}
			end := toolEnds(h.harness)[0]
			if end.IsError == tt.ran {
				t.Errorf("ran = %v, want %v: %q", !end.IsError, tt.ran, end.Output)
			}
			if !tt.ran && (!strings.Contains(end.Output, "denied") || !strings.Contains(end.Output, "not now")) {
				t.Errorf("denial = %q", end.Output)
			}
		})
	}
}

func TestTextProtocolDescribesUnlockedTools(t *testing.T) {
	h := newTiered(t, ollamatest.TinyTools(), 0, 3, nil, func(c *Config) { c.TextTools = true })
	h.srv.Script(
		ollamatest.Reply{Content: `<tool_call>{"name": "request_tools", "arguments": {"tier": 1, "reason": "edit"}}</tool_call>`},
		ollamatest.Reply{Content: "ok"},
	)
	if err := h.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	first, second := reqs[0].Messages[0].Content, reqs[1].Messages[0].Content
	if strings.Contains(first, "- edit_file(") || !strings.Contains(second, "- edit_file(") || !strings.Contains(second, "- write_file(") {
		t.Errorf("system prompts:\n%s\n---\n%s", first, second)
	}
	if !strings.HasPrefix(second, first) {
		t.Errorf("the second system prompt does not extend the first, so the prompt cache is lost")
	}
	if len(reqs[0].Tools)+len(reqs[1].Tools) != 0 {
		t.Error("tools were sent natively in the text protocol")
	}
}

func TestPrefixTokensFollowTheTools(t *testing.T) {
	h := newTiered(t, ollamatest.Qwen3(), 0, 3, nil)
	base := h.agent.PrefixTokens()
	if err := h.set.SetTier(t.Context(), disclosure.Commands, "test"); err != nil {
		t.Fatal(err)
	}
	up := h.agent.PrefixTokens()
	if up <= base {
		t.Fatalf("prefix tokens %d after unlocking, %d before", up, base)
	}
	if err := h.set.SetTier(t.Context(), disclosure.Read, "test"); err != nil {
		t.Fatal(err)
	}
	if down := h.agent.PrefixTokens(); down != base {
		t.Errorf("prefix tokens after lowering = %d, want %d again", down, base)
	}
}
