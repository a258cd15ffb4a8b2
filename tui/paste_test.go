package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ternhq/tern/models/ollamatest"
)

// paste delivers text as the terminal's bracketed paste does.
func (h *harness) paste(text string) {
	h.app.app.QueueUpdateDraw(func() {
		root := &rootView{Pages: h.app.pages, a: h.app} // as the application's root
		root.PasteHandler()(text, func(p tview.Primitive) { h.app.app.SetFocus(p) })
	})
}

// TestBigPasteShowsItsSize pastes a megabyte at 60 and 120 columns: the
// hint says how much came, the rule above the prompt keeps saying it, the
// prompt shows the paste's last lines (not the empty rows below them),
// Ctrl+C clears it; and the conversation shows the start of a long sent
// prompt and its size.
func TestBigPasteShowsItsSize(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 15000 {
		fmt.Fprintf(&b, "line %d: %s\n", i, strings.Repeat("x", 60))
	}
	big := b.String()
	for _, w := range []int{60, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t)
			h.online()
			h.resize(w, 30)
			h.paste(big)
			s := h.waitFor("pasted 1.0 MB", "prompt: 1.0 MB, 15000 lines", "line 14999:")
			rows := strings.Split(s, "\n")
			if prompt := strings.Join(rows[len(rows)-10:], "\n"); !strings.Contains(prompt, "line 14999:") || !strings.Contains(prompt, "line 14998:") {
				t.Errorf("the prompt does not show the end of the paste:\n%s", s)
			}
			h.key(tcell.KeyCtrlC)
			h.waitFor("prompt cleared")
			h.waitGone("prompt: 1.0 MB")

			// Sent, a long prompt shows its start and its size (a small
			// one here: the fake server counts every token it gets).
			var b strings.Builder
			for i := range 60 {
				fmt.Fprintf(&b, "row %d\n", i)
			}
			h.paste(b.String())
			h.srv.Script(ollamatest.Reply{Content: "A long one."})
			h.key(tcell.KeyEnter)
			s = h.waitFor("row 39", "… 20 more lines (the prompt was 409 B, 60 lines)", "A long one.")
			if strings.Contains(s, "row 40") {
				t.Errorf("the conversation shows more of the prompt than its start:\n%s", s)
			}
		})
	}
}

// TestPasteWhileADialogWaitsGoesToThePrompt: a dialog's keys take no
// text, so a paste goes to the prompt and says so.
func TestPasteWhileADialogWaitsGoesToThePrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.app.app.QueueUpdateDraw(func() { h.app.confirm("undo?", nil, "restore", func() {}, nil) })
	h.waitFor("y restore")
	h.settle()
	h.paste("some pasted words")
	h.waitFor("pasted into your prompt; the dialog still waits for an answer")
	if got := h.inputText(); got != "some pasted words" {
		t.Errorf("the prompt holds %q after the paste", got)
	}
}
