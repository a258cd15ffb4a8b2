package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestDialogsClearWhatTheyCover opens each kind of dialog over a
// conversation that fills every cell with Z and checks, at several
// terminal sizes, that not one Z shows inside the dialog's frame: not in
// its border padding, not beside a short line, not below its last line.
func TestDialogsClearWhatTheyCover(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 45}, {50, 14}} {
		w, ht := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, ht), func(t *testing.T) {
			h := newHarness(t)
			h.online()
			h.onLoop(func() { h.sim.SetSize(w, ht) })
			h.post(tcell.NewEventResize(w, ht))
			fill := make([]line, 0, ht*2)
			for range ht * 2 {
				fill = append(fill, styledLine(strings.Repeat("Z", w), h.app.th.text))
			}
			h.app.app.QueueUpdateDraw(func() { h.app.conv.add(&block{kind: kindInfo, short: fill}) })
			h.waitFor("ZZZZZZZZZZ")

			opened := []struct {
				name, shows string
				open        func()
			}{
				{"help", "↑/↓ PgUp/PgDn", func() { h.app.showHelp() }},
				{"confirm", "draft?", func() {
					h.app.confirm("write the draft?", []line{styledLine("# Agents", h.app.th.text), styledLine("short", h.app.th.text)}, "write", func() {}, nil)
				}},
			}
			for _, d := range opened {
				h.app.app.QueueUpdateDraw(d.open)
				h.waitFor(d.shows)
				checkCleared(t, h, d.name)
				h.key(tcell.KeyEscape)
				h.waitGone(d.shows)
			}

			h.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"remember [this]"}`}}},
				ollamatest.Reply{Content: "Noted."},
			)
			h.send("note it")
			h.waitFor("Allow write_note?", "y allow once")
			checkCleared(t, h, "approval")
			h.typeText("y")
			h.waitFor("Noted.")
		})
	}
}

// checkCleared finds the open dialog's frame (its double-line corners)
// and fails when a cell inside it shows the Z of the conversation below.
func checkCleared(t *testing.T, h *harness, name string) {
	t.Helper()
	// The screen's cells are read on the event loop, which goes on
	// drawing into them afterwards: only their first runes leave it.
	var first []rune
	var w, ht int
	h.onLoop(func() {
		var cells []tcell.SimCell
		cells, w, ht = h.sim.GetContents()
		first = make([]rune, len(cells))
		for i, c := range cells {
			first[i] = ' '
			if len(c.Runes) > 0 {
				first[i] = c.Runes[0]
			}
		}
	})
	at := func(x, y int) rune { return first[y*w+x] }
	x0, y0, x1, y1 := -1, -1, -1, -1
	for y := 0; y < ht && x0 < 0; y++ {
		for x := 0; x < w; x++ {
			if at(x, y) == '╔' {
				x0, y0 = x, y
				break
			}
		}
	}
	if x0 < 0 {
		t.Fatalf("%s: no dialog frame on the screen:\n%s", name, h.screen())
	}
	for x := x0 + 1; x < w; x++ {
		if at(x, y0) == '╗' {
			x1 = x
			break
		}
	}
	for y := y0 + 1; y < ht; y++ {
		if at(x0, y) == '╚' {
			y1 = y
			break
		}
	}
	if x1 < 0 || y1 < 0 {
		t.Fatalf("%s: the dialog frame is not closed:\n%s", name, h.screen())
	}
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			if at(x, y) == 'Z' {
				t.Fatalf("%s: the conversation shows through the dialog at column %d, row %d:\n%s", name, x, y, h.screen())
			}
		}
	}
	t.Logf("%s at %dx%d:\n%s", name, w, ht, h.screen())
}
