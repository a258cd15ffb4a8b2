package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestTypingWhileAnApprovalOpensDecidesNothing types "a" (allow for the
// session) and "y" (allow once) into the prompt without a pause while
// the model asks to write: before the dialog is drawn and for a while
// after. Nothing may be approved, every key must land in the prompt, and
// once the keyboard is quiet the dialog takes keys.
func TestTypingWhileAnApprovalOpensDecidesNothing(t *testing.T) {
	// The grace period is longer than the default so that no pause of a
	// loaded machine between two typed keys reads as the user stopping.
	h := newHarness(t, withConfig(func(c *Config) { c.KeyGrace = 2 * time.Second }))
	h.online()
	h.srv.Script(
		ollamatest.Reply{Chunks: []string{"I will ", "note ", "that."}, ChunkDelay: 30 * time.Millisecond,
			ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"x"}`}}},
		ollamatest.Reply{Content: "Not noted."},
	)
	h.send("note it")
	var typed strings.Builder
	for after := 0; after < 10; {
		for _, r := range "ay" {
			h.post(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
			typed.WriteRune(r)
		}
		var shown bool
		h.onLoop(func() { shown = !h.app.guard.shown.IsZero() })
		if shown {
			after++
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.waitUntil("every typed key in the prompt", func() bool { return h.app.input.GetText() == typed.String() })
	s := h.waitFor("Allow write_note?", "typing goes to your prompt")
	if n := h.note.written(); n != 0 || strings.Contains(s, "allowed write_note") {
		t.Fatalf("keys typed for the prompt approved the write (%d runs):\n%s", n, s)
	}

	h.waitGone("typing goes to your prompt")
	h.typeText("n")
	h.waitFor("Reason for the model")
	h.key(tcell.KeyEnter)
	h.waitFor("denied write_note", "Not noted.")
	if n := h.note.written(); n != 0 {
		t.Fatalf("the write ran after n")
	}
	if got := h.inputText(); got != typed.String() {
		t.Errorf("the prompt holds %q after the dialog, want what was typed, %q", got, typed.String())
	}
}
