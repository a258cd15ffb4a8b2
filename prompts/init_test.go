package prompts

import (
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
