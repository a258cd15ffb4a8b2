package prompts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitNotesGolden pins what /init asks the model: the first words of
// a new project's notes.
func TestInitNotesGolden(t *testing.T) {
	got := InitNotes()
	golden(t, "init", got)
	for _, want := range []string{"AGENTS.md", "no more than 60 lines", "do not guess"} {
		if !strings.Contains(got, want) {
			t.Errorf("the /init prompt lacks %q", want)
		}
	}
}

// TestNotesWriterNeverOverwrites: /init creates AGENTS.md when there is
// none, and otherwise leaves the user's file alone and saves a draft.
func TestNotesWriterNeverOverwrites(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	w := NotesWriter{Root: root, StateFile: func(name string) (string, error) { return filepath.Join(state, name), nil }}
	if w.Prompt() != InitNotes() {
		t.Error("the writer asks the model something other than the /init prompt")
	}
	agents := filepath.Join(root, "AGENTS.md")
	got, err := w.WriteNotes("# first\n")
	if err != nil || got != agents {
		t.Fatalf("first write: %q, %v; want %q", got, err, agents)
	}
	got, err = w.WriteNotes("# second\n")
	draft := filepath.Join(state, "AGENTS.draft.md")
	if want := draft + " (AGENTS.md exists and was left alone; merge the draft by hand)"; err != nil || got != want {
		t.Fatalf("second write: %q, %v; want %q", got, err, want)
	}
	for path, want := range map[string]string{agents: "# first\n", draft: "# second\n"} {
		if data, err := os.ReadFile(path); err != nil || string(data) != want {
			t.Errorf("%s holds %q (%v), want %q", path, data, err, want)
		}
	}
	w.StateFile = func(string) (string, error) { return "", errors.New("no state dir") }
	if _, err := w.WriteNotes("# third\n"); err == nil || !strings.Contains(err.Error(), "no state dir") {
		t.Errorf("a state directory that cannot be made: %v", err)
	}
}
