package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestUndoTakesBackTheLastTurn: in a git workspace, two turns change
// files; /undo takes back the second only: its files are as the first
// left them, the file it made is gone, its lines leave the conversation
// and its prompt comes back into the prompt; the model is not sent it
// again; a second /undo has nothing more to take back.
func TestUndoTakesBackTheLastTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.gitInit()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file",
			Args: `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"hello\")"}`}}},
		ollamatest.Reply{Content: "First done."},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{
			{Name: "edit_file", Args: `{"path":"main.go","old_string":"println(\"hello\")","new_string":"println(\"bonjour\")"}`},
			{Name: "write_file", Args: `{"path":"notes.txt","content":"new\n"}`}}},
		ollamatest.Reply{Content: "Second done."},
		ollamatest.Reply{Content: "Fresh answer."},
	)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUIWith(ctx, 100, 40, "--tier", "1", "--yes")
	waitScreen(t, sim, "qwen3:8b │ tier 1")
	typeLine(sim, "say hello")
	waitScreen(t, sim, "First done.")
	waitGone(t, sim, "generating")
	typeLine(sim, "say bonjour and take notes")
	waitScreen(t, sim, "Second done.")
	waitGone(t, sim, "generating")
	if got := f.read("main.go"); !strings.Contains(got, "bonjour") {
		t.Fatalf("the second turn did not edit: %q", got)
	}

	typeLine(sim, "/undo")
	s := waitScreen(t, sim, "undo: take back the last turn?", "› say bonjour and take notes", "Restore 1 file to what it held before the turn:", "main.go",
		"Delete 1 file the turn created:", "notes.txt")
	waitDialogKeys(t, sim)
	sim.InjectKey(tcell.KeyRune, 'y', tcell.ModNone)
	s = waitScreen(t, sim, "undone: the last turn left the conversation; 2 files put back as they were before it")
	if strings.Contains(s, "Second done.") || !strings.Contains(s, "First done.") {
		t.Errorf("the conversation does not show the first turn alone:\n%s", s)
	}
	if !strings.Contains(s, "› say bonjour and take notes") {
		t.Errorf("the taken back prompt is not back in the prompt:\n%s", s)
	}
	if got := f.read("main.go"); !strings.Contains(got, "hello") || strings.Contains(got, "bonjour") {
		t.Errorf("main.go is not as the first turn left it: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the file the turn made is still there (%v)", err)
	}

	// The prompt that came back is sent again; the model no longer sees
	// the turn taken back.
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, sim, "Fresh answer.")
	waitGone(t, sim, "generating")
	reqs := f.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, "Second done.") || strings.Contains(m.Content, "notes.txt") {
			t.Errorf("the model was sent the turn taken back: %q", m.Content)
		}
	}
	typeLine(sim, "/undo")
	s = waitScreen(t, sim, "undo: take back the last turn?", "The turn changed no files.")
	waitDialogKeys(t, sim)
	sim.InjectKey(tcell.KeyRune, 'y', tcell.ModNone)
	waitGone(t, sim, "take back the last turn?")
	waitGone(t, sim, "Fresh answer.")
	sim.InjectKey(tcell.KeyCtrlC, 0, tcell.ModNone) // the prompt came back again
	waitScreen(t, sim, "prompt cleared")
	typeLine(sim, "/undo")
	waitScreen(t, sim, "nothing more to undo: /undo takes back the last turn only, once")
	quit(t, sim, done)
}
