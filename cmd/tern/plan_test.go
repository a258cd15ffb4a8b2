package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
)

const (
	firstPlan   = "Goal: main prints bonjour.\n1. Edit main.go: println(\"bonjour\")."
	revisedPlan = "Goal: main prints bonjour.\n1. Edit main.go: println(\"bonjour\").\n2. Check: go run . prints bonjour."
)

func lastContent(req api.ChatRequest) string { return req.Messages[len(req.Messages)-1].Content }

// TestPlanHeadless: tern ask --plan lets the model only read (explore
// included, even at tier 2, and the prompt's words unlock nothing), prints
// the plan and says how to answer it; --plan on the resumed session sends
// it back with a comment; --accept-plan unlocks tier 1, pins the plan in
// the system prompt, where later runs of the session still find it, and
// has the model carry it out.
func TestPlanHeadless(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{
			{Name: "write_file", Args: `{"path":"main.go","content":"package main\n"}`},
			{Name: "read_file", Args: `{"path":"main.go"}`},
		}},
		ollamatest.Reply{Content: firstPlan},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--tier", "2", "--plan", "make main print bonjour and run the tests")
	if code != 0 || out != firstPlan+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	m := regexp.MustCompile("Accept it with `tern ask --resume (\\S+) --accept-plan`").FindStringSubmatch(errOut)
	if m == nil || !strings.Contains(errOut, "send it back with `tern ask --resume "+m[1]+" --plan \"COMMENT\"`") {
		t.Fatalf("stderr does not say how to answer the plan:\n%s", errOut)
	}
	id := m[1]
	if strings.Contains(errOut, "unlocked") {
		t.Errorf("plan mode unlocked tools:\n%s", errOut)
	}
	reqs := f.srv.Requests()
	for i, r := range reqs {
		names := toolNames(r)
		for _, banned := range []string{"write_file", "edit_file", "run_command", "request_tools"} {
			if slices.Contains(names, banned) {
				t.Errorf("plan request %d offers %s: %v", i, banned, names)
			}
		}
		if !slices.Contains(names, "explore") || !slices.Contains(names, "read_file") {
			t.Errorf("plan request %d offers %v", i, names)
		}
	}
	if res := lastContent(reqs[1]); !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-2].Content, "plan mode allows only the read-only tools") || !strings.Contains(res, "println") {
		t.Errorf("the write was not refused: %q", reqs[1].Messages[len(reqs[1].Messages)-2].Content)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); !strings.Contains(string(b), "println") {
		t.Fatalf("plan mode changed main.go: %q", b)
	}

	// Sent back with a comment.
	f.srv.Script(ollamatest.Reply{Content: revisedPlan})
	code, out, errOut = f.tern(t.Context(), "ask", "--resume", id, "--plan", "say how to check it")
	if code != 0 || out != revisedPlan+"\n" {
		t.Fatalf("send back: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	reqs = f.srv.Requests()
	back := reqs[len(reqs)-1]
	if !strings.HasPrefix(lastContent(back), "The user sent your plan back with this comment: say how to check it") {
		t.Errorf("send back asks %q", lastContent(back))
	}
	if !strings.Contains(back.Messages[len(back.Messages)-2].Content, firstPlan) {
		t.Error("the plan sent back is not in the conversation")
	}

	// Accepted: tier 1, the plan pinned, carried out.
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"bonjour\")"}`}}},
		ollamatest.Reply{Content: "main.go now prints bonjour."},
	)
	code, out, errOut = f.tern(t.Context(), "ask", "--resume", id, "--accept-plan", "--yes")
	if code != 0 || out != "main.go now prints bonjour.\n" {
		t.Fatalf("accept: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "tier 1 (edit) unlocked") || !strings.Contains(errOut, "the plan was accepted") {
		t.Errorf("accept stderr:\n%s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); !strings.Contains(string(b), "bonjour") {
		t.Errorf("main.go after accepting: %q\n%s", b, errOut)
	}
	reqs = f.srv.Requests()
	accepted := reqs[len(reqs)-2:]
	for i, r := range accepted {
		if system := r.Messages[0].Content; !strings.Contains(system, "Goal: the plan the user accepted") || !strings.Contains(system, revisedPlan) {
			t.Errorf("accepted request %d: the goal is not pinned in the system prompt:\n%s", i, system)
		}
		if names := toolNames(r); !slices.Contains(names, "write_file") || slices.Contains(names, "run_command") {
			t.Errorf("accepted request %d offers %v, want tier 1", i, names)
		}
	}
	if !strings.HasPrefix(lastContent(accepted[0]), "The user accepted the plan. Carry it out now") {
		t.Errorf("accept asks %q", lastContent(accepted[0]))
	}
	if code, _, errOut := f.tern(t.Context(), "ask", "--resume", id, "--accept-plan"); code == 0 || !strings.Contains(errOut, "has no plan to accept") {
		t.Errorf("accepting twice: exit %d, stderr:\n%s", code, errOut)
	}

	// The next run of the session still has the goal pinned.
	f.srv.Script(ollamatest.Reply{Content: "Yes."})
	if code, _, errOut := f.tern(t.Context(), "ask", "--resume", id, "is it done?"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs = f.srv.Requests()
	if system := reqs[len(reqs)-1].Messages[0].Content; !strings.Contains(system, revisedPlan) {
		t.Errorf("a later run lost the goal:\n%s", system)
	}

	// tern sessions and the resumed TUI show what the user typed, not
	// plan mode's instructions around it.
	_, out, _ = f.tern(t.Context(), "sessions")
	if !strings.Contains(out, "make main print bonjour and run the tests\n") || strings.Contains(out, "[Plan mode") {
		t.Errorf("tern sessions shows:\n%s", out)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, _ := f.startTUIWith(ctx, 120, 60, "--resume", id)
	screen := waitScreen(t, sim, "resumed session", "› make main print bonjour and run the tests", "› (plan sent back) say how to check it",
		"› (plan accepted: carry it out)", "› is it done?")
	if strings.Contains(screen, "Plan mode") || strings.Contains(screen, "The user accepted the plan") {
		t.Errorf("the resumed TUI shows plan mode's instructions as the user's words:\n%s", screen)
	}
}

// TestPlanModeInTmux: Shift+Tab turns plan mode on; the model's plan
// opens a dialog once its turn ends; s sends it back with a comment; Esc
// keeps planning and /plan opens the dialog again; 1 accepts it at tier 1,
// and the model carries it out with the plan pinned in its window.
func TestPlanModeInTmux(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"main.go"}`}}},
		ollamatest.Reply{Content: firstPlan},
		ollamatest.Reply{Content: revisedPlan},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"bonjour\")"}`}}},
		ollamatest.Reply{Content: "main.go now prints bonjour."},
	)
	tt := startTmux(t, f, 110, 32, "--yes")
	tt.waitPane("qwen3:8b │ tier 0", "new session")
	tt.keys("BTab")
	tt.waitPane("PLAN", "plan mode on", "plan › ")
	tt.keys("make main print bonjour", "Enter")
	tt.waitPane("═ The plan ═", "1 accept, tier 1 (edit)", "2 accept, tier 2 (commands)", "Edit main.go")
	tt.answer("s")
	tt.waitPane("Comment for the model:", "Enter send the plan back")
	tt.keys("say how to check it", "Enter")
	// The revised plan's dialog may open before a poll sees the comment's
	// line, and covers it: the comment is checked in the request below.
	tt.waitPane("═ The plan ═", "go run . prints bonjour")
	tt.answer("Escape")
	tt.waitPane("still planning")
	tt.keys("/plan", "Enter")
	tt.waitPane("═ The plan ═")
	tt.answer("1")
	tt.waitPane("main.go now prints bonjour.", "goal pinned", "tier 1")
	tt.waitIdle()
	if strings.Contains(tt.pane(), "PLAN") {
		t.Errorf("still in plan mode after accepting:\n%s", tt.pane())
	}
	reqs := f.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, r := range reqs[:3] {
		if slices.Contains(toolNames(r), "edit_file") || slices.Contains(toolNames(r), "request_tools") || !slices.Contains(toolNames(r), "explore") {
			t.Errorf("plan request %d offers %v", i, toolNames(r))
		}
	}
	if !strings.HasPrefix(lastContent(reqs[2]), "The user sent your plan back with this comment: say how to check it") {
		t.Errorf("send back asks %q", lastContent(reqs[2]))
	}
	for i, r := range reqs[3:] {
		if system := r.Messages[0].Content; !strings.Contains(system, revisedPlan) {
			t.Errorf("accepted request %d: no goal in the system prompt", i)
		}
		if !slices.Contains(toolNames(r), "edit_file") {
			t.Errorf("accepted request %d offers %v", i, toolNames(r))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); !strings.Contains(string(b), "bonjour") {
		t.Errorf("main.go: %q", b)
	}
}

// TestPlanResumedInTmux: a plan made by tern ask --plan waits in the
// session; the TUI resuming it says so, and /plan opens it to accept.
func TestPlanResumedInTmux(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: firstPlan})
	code, _, errOut := f.tern(t.Context(), "ask", "--plan", "make main print bonjour")
	m := regexp.MustCompile("--resume (\\S+) --accept-plan").FindStringSubmatch(errOut)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"bonjour\")"}`}}},
		ollamatest.Reply{Content: "main.go now prints bonjour."},
	)
	tt := startTmux(t, f, 110, 32, "--yes", "--resume", m[1])
	tt.waitPane("resumed session", "this session has a plan waiting for your answer: /plan opens it")
	tt.keys("/plan", "Enter")
	tt.waitPane("═ The plan ═", "Edit main.go", "PLAN")
	tt.answer("2")
	tt.waitPane("main.go now prints bonjour.", "goal pinned", "tier 2")
	tt.waitIdle()
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.Messages[0].Content, firstPlan) || !slices.Contains(toolNames(last), "run_command") {
		t.Errorf("accepted at tier 2: tools %v, system:\n%s", toolNames(last), last.Messages[0].Content)
	}
}

// TestPlanJSONEvent: with --json the plan comes as a plan event, just
// before done.
func TestPlanJSONEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: firstPlan})
	code, out, errOut := f.tern(t.Context(), "ask", "--json", "--plan", "make main print bonjour")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := `{"type":"plan","plan":"Goal: main prints bonjour.\n1. Edit main.go: println(\"bonjour\")."}`
	if n := len(lines); n < 2 || lines[n-2] != want || !strings.HasPrefix(lines[n-1], `{"type":"done","reason":"stop"`) {
		t.Errorf("the events end:\n%s", strings.Join(lines[max(0, len(lines)-2):], "\n"))
	}
}
