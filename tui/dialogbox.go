package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// This file lays dialogs out so that nothing a user needs is cut off at any
// width tern supports: the keys a dialog takes wrap onto as many rows as
// they need under its body, a text field's label wraps above the field,
// and a dialog takes the whole width of a narrow terminal.

// hint is one key a dialog takes and what it does.
type hint struct{ key, what string }

// keyBar lists a dialog's keys under a lead text (a label, a warning),
// each key whole on a row, wrapped onto as many rows as the width needs.
// Its texts are computed at draw time.
type keyBar struct {
	*tview.Box
	th    theme
	lead  func() []span
	hints func() []hint
}

func newKeyBar(th theme, lead func() []span, hints ...hint) *keyBar {
	k := &keyBar{Box: th.plain(tview.NewBox()), th: th, lead: lead}
	k.hints = func() []hint { return hints }
	return k
}

// keySep separates the keys of a row.
const keySep = "   "

// lines lays the bar out at width.
func (k *keyBar) lines(width int) [][]span {
	width = max(width, 1)
	var rows [][]span
	if k.lead != nil {
		if lead := k.lead(); len(lead) > 0 {
			rows = append(rows, wrap(line{spans: lead, hang: 2}, width)...)
		}
	}
	var row []span
	used := 0
	for _, h := range k.hints() {
		item := []span{{text: h.key, style: k.th.bold}, {text: " " + h.what, style: k.th.text}}
		w := spansWidth(item)
		switch {
		case used > 0 && used+len(keySep)+w <= width:
			row = append(row, span{text: keySep, style: k.th.text})
			row = append(row, item...)
			used += len(keySep) + w
			continue
		case used > 0:
			rows = append(rows, row)
			row, used = nil, 0
		}
		if w > width {
			rows = append(rows, wrap(line{spans: item, hang: textWidth(h.key) + 1}, width)...)
			continue
		}
		row, used = item, w
	}
	if used > 0 {
		rows = append(rows, row)
	}
	return rows
}

// rows is how many rows the bar takes at width.
func (k *keyBar) rows(width int) int { return max(1, len(k.lines(width))) }

func (k *keyBar) Draw(screen tcell.Screen) {
	k.Box.DrawForSubclass(screen, k)
	x, y, w, h := k.GetInnerRect()
	for i, row := range k.lines(w) {
		if i >= h {
			break
		}
		drawSpans(screen, x, y+i, w, row, k.th.text)
	}
}

// fitter is a part of a dialog whose height follows its width.
type fitter interface {
	tview.Primitive
	rows(width int) int
}

// column is a Flex of rows in which every part that is a fitter gets, at
// each draw, the height its width needs (leaving a row for the others).
type column struct{ *tview.Flex }

func newColumn() *column { return &column{Flex: tview.NewFlex().SetDirection(tview.FlexRow)} }

func (c *column) Draw(screen tcell.Screen) {
	_, _, w, h := c.GetInnerRect()
	for i := range c.GetItemCount() {
		if f, ok := c.GetItem(i).(fitter); ok {
			c.ResizeItem(f, min(f.rows(w), max(h-1, 1)), 0)
		}
	}
	c.Flex.Draw(screen)
}

// dialogBox is a dialog: a body that takes the room left, and under it a
// part sized to its width (the keys, or a text field), which may be
// swapped for another.
type dialogBox struct {
	*column
	bottom fitter
}

// newDialogBox frames body and bottom under title.
func (a *App) newDialogBox(title string, body tview.Primitive, bottom fitter) *dialogBox {
	d := &dialogBox{column: newColumn(), bottom: bottom}
	d.AddItem(body, 0, 1, false).AddItem(bottom, 1, 0, true)
	a.framed(d.Box, title)
	return d
}

// swap puts next where the bottom part was and focuses it.
func (d *dialogBox) swap(a *App, next fitter) {
	d.RemoveItem(d.bottom)
	d.bottom = next
	d.AddItem(next, 1, 0, true)
	a.app.SetFocus(next)
}

// entry is a text field under a label that wraps: the reason for a
// denial, a comment on a plan, an answer to the model's question.
type entry struct {
	*column
	label *keyBar
	field *tview.InputField
}

func (a *App) newEntry(label string, hints ...hint) *entry {
	th := a.th
	e := &entry{column: newColumn()}
	e.label = newKeyBar(th, func() []span { return []span{{text: label, style: th.bold}} }, hints...)
	e.field = tview.NewInputField().SetLabel("› ")
	e.field.SetFieldStyle(th.text.Underline(true)).SetLabelStyle(th.userMark)
	th.plain(e.field.Box)
	e.AddItem(e.label, 1, 0, false).AddItem(e.field, 1, 0, true)
	return e
}

func (e *entry) rows(width int) int { return e.label.rows(width) + 1 }

// Focus gives the focus to the field.
func (e *entry) Focus(delegate func(p tview.Primitive)) { delegate(e.field) }

// narrowColumns is the width under which a dialog takes the whole width
// (less a column each side), and shortRows the height under which it
// takes the whole height between the status bar and the footer.
const (
	narrowColumns = 100
	shortRows     = 30
)

// centered places a dialog over the main view, taking the given share
// (in tenths) of the width and height of a large terminal and nearly all
// of a small one. The rest of the main view stays visible around it.
type centered struct {
	tview.Primitive
	wTenths, hTenths int
}

func (c *centered) SetRect(x, y, width, height int) {
	w := width * c.wTenths / 10
	if width < narrowColumns {
		w = width - 2
	}
	h := height * c.hTenths / 10
	if height < shortRows {
		h = height - 2
	}
	w, h = max(min(w, width), 1), max(min(h, height), 1)
	c.Primitive.SetRect(x+(width-w)/2, y+(height-h)/2, w, h)
}
