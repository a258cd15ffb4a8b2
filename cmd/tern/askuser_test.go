package main

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

const twoQuestions = `{"questions":[{"question":"Which database should the cache use?","options":["SQLite","Postgres"]},{"question":"Keep the old API?","options":["yes","no","deprecate it"]}]}`

// TestAskUserHeadless: tern ask has no one to ask, so ask_user answers at
// once and the model is told to decide.
func TestAskUserHeadless(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ask_user", Args: twoQuestions}}},
		ollamatest.Reply{Content: "I assumed SQLite."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "add a cache")
	if code != 0 || out != "I assumed SQLite.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	reqs := f.srv.Requests()
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || last.Content != "no user available: decide and say what you assumed" {
		t.Errorf("the model got %s %q", last.Role, last.Content)
	}
	if !strings.Contains(errOut, "ask_user 2 questions: no user available") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestAskUserInTmux: in the TUI the model's questions open a dialog, one
// question at a time; the answers (an option, then typed words) go back to
// the model.
func TestAskUserInTmux(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ask_user", Args: twoQuestions}}},
		ollamatest.Reply{Content: "Using Postgres and keeping a shim."},
	)
	tt := startTmux(t, f, 100, 45) // tall enough for the call's line above the dialog
	tt.waitPane("qwen3:8b │ tier 0", "new session")
	tt.keys("add a cache", "Enter")
	s := tt.waitPane("The model asks (1 of 2)", "Which database should the cache use?", "(1) SQLite", "(2) Postgres", "(3) Other: type an answer",
		`ask_user "Which database should the cache use?" +1 more`)
	if strings.Contains(s, `{"questions"`) {
		t.Errorf("the call's line shows its JSON:\n%s", s)
	}
	tt.answer("2")
	tt.waitPane("The model asks (2 of 2)", "Keep the old API?", "(3) deprecate it")
	tt.answer("4")
	tt.waitPane("Your answer:", "Enter send")
	tt.keys("keep a shim for one release", "Enter")
	tt.waitPane("Using Postgres and keeping a shim.", "Which database should the cache use? → Postgres")
	tt.waitIdle()
	msgs := f.srv.Requests()[1].Messages
	got := msgs[len(msgs)-1].Content
	want := "1. Which database should the cache use? → Postgres\n2. Keep the old API? → keep a shim for one release"
	if got != want {
		t.Errorf("the model got %q, want %q", got, want)
	}
}
