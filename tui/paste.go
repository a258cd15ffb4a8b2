package tui

import (
	"fmt"
	"strings"

	"github.com/rivo/tview"
)

// This file keeps a large prompt visible for what it is: a paste of a
// megabyte shows its size, in a hint as it lands and on the rule above
// the prompt while it is there; the prompt shows its end, where the
// cursor is; and a paste that arrives while a dialog waits goes to the
// prompt instead of being lost on the dialog's keys.

// bigPrompt is the size from which the rule above the prompt shows the
// prompt's size, and a change that adds at least pasteNotice bytes at
// once says how much was pasted.
const (
	bigPrompt   = 4 << 10
	pasteNotice = 1 << 10
)

// promptSize is the prompt's size, kept by inputChanged.
type promptSize struct{ bytes, lines int }

func (p promptSize) String() string {
	return humanBytes(p.bytes) + ", " + countOf(p.lines, "line")
}

// measurePrompt records the prompt's size after a change and says so when
// the change was a large paste.
func (a *App) measurePrompt(text string) {
	before := a.size
	a.size = promptSize{bytes: len(text), lines: strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1}
	if a.size.bytes-before.bytes >= pasteNotice {
		a.setHint(fmt.Sprintf("pasted %s · Enter sends, Ctrl+C clears", humanBytes(a.size.bytes-before.bytes)))
	}
}

// keepCursorInView shows a prompt taller than its box down to the cursor
// when the cursor is at the end, as after a paste. The text area scrolls
// for the height it was last drawn at: a one-row prompt that a paste
// makes eight rows tall would show the cursor's row at the top and empty
// rows below it. The cursor's row is known once the text area has drawn
// the new text, so the scroll is set after that draw.
func (a *App) keepCursorInView(lines int) {
	if lines <= maxInputRows {
		// It all fits now: show it from the top, not scrolled as it was
		// when the prompt was one row shorter.
		a.input.SetOffset(0, 0)
		return
	}
	a.pump.post(func() {
		_, _, end := a.input.GetSelection()
		if end < a.input.GetTextLength() {
			return // the cursor is inside the text, where the user put it
		}
		_, _, row, _ := a.input.GetCursor()
		_, _, _, height := a.input.GetInnerRect()
		a.input.SetOffset(max(0, row-height+1), 0)
	})
}

// ruleSpans draws the rule above the prompt, with the prompt's size on its
// right when the prompt is large.
func (a *App) ruleSpans(width int) []span {
	th := a.th
	if a.size.bytes < bigPrompt {
		return []span{{text: strings.Repeat("─", width), style: th.rule}}
	}
	label := " prompt: " + a.size.String() + " "
	if textWidth(label)+4 > width {
		label = " " + humanBytes(a.size.bytes) + " "
	}
	fill := max(width-textWidth(label)-2, 0)
	return []span{{text: strings.Repeat("─", fill), style: th.rule}, {text: label, style: th.warn}, {text: "──", style: th.rule}}
}

// humanBytes writes a size briefly: 950 B, 12 KB, 1.0 MB.
func humanBytes(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// rootView is the application's root: the pages, with pastes that a
// dialog cannot take (its focus is on its keys, or it is holding keys
// back) sent to the prompt.
type rootView struct {
	*tview.Pages
	a *App
}

func (r *rootView) PasteHandler() func(string, func(tview.Primitive)) {
	inner := r.Pages.PasteHandler()
	return func(text string, setFocus func(tview.Primitive)) {
		a := r.a
		if _, field := a.app.GetFocus().(*tview.InputField); a.modal != "" && (a.guarding() || !field) {
			a.input.PasteHandler()(text, func(tview.Primitive) {})
			a.setHint("pasted into your prompt; the dialog still waits for an answer")
			return
		}
		inner(text, setFocus)
	}
}
