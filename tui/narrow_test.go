package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// TestDialogKeysShowAtEveryWidth opens every dialog at 60, 120 and 40
// columns and checks that each key it takes is on the screen, whole; that
// the reason for a denial shows its label and its keys; and that the rows
// a long diff line wraps onto keep its + or - marker.
func TestDialogKeysShowAtEveryWidth(t *testing.T) {
	t.Parallel()
	long := func(word string) string { return strings.TrimSpace(strings.Repeat(word+" ", 30)) }
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-" + long("old") + "\n+" + long("new") + "\n"
	for _, size := range [][2]int{{60, 24}, {120, 40}, {40, 30}} {
		w, ht := size[0], size[1]
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t, withDeps(func(d *Deps) {
				d.Search = &fakeSearch{hits: []SearchHit{{Path: "main.go", StartLine: 3, Snippet: "func main() {}"}}}
			}))
			h.online()
			h.resize(w, ht)

			answer := make(chan agent.Decision, 1)
			h.app.app.QueueUpdateDraw(func() {
				h.app.approvalDialog(agent.Approval{Tool: "write_file", Effect: tools.Writes, Preview: diff}, answer)
			})
			s := h.waitFor("Allow write_file?")
			h.settle()
			s = h.screen()
			t.Logf("approval at %d columns:\n%s", w, s)
			checkShown(t, s, "y allow once", "a always allow write_file this session", "n deny", "PgUp/PgDn scroll")
			if w >= 60 && !strings.Contains(s, "n deny   PgUp/PgDn scroll") {
				t.Errorf("at %d columns the keys do not share a row:\n%s", w, s)
			}
			checkMarked(t, s, "new", '+')
			checkMarked(t, s, "old", '-')
			h.typeText("n")
			s = h.waitFor("Reason for the model")
			t.Logf("reason at %d columns:\n%s", w, s)
			checkShown(t, s, "Reason for the model (may be empty):", "Enter deny", "Esc deny without a reason")
			h.key(tcell.KeyEscape)
			if d := <-answer; d.Allow {
				t.Fatal("Esc in the reason allowed the call")
			}

			dialogs := []struct {
				open func()
				keys []string
			}{
				{func() { h.app.confirm("undo?", []line{styledLine("x", h.app.th.text)}, "restore", func() {}, nil) },
					[]string{"y restore", "n no", "PgUp/PgDn scroll"}},
				{func() { h.app.plan = "1. Do it."; h.app.planDialog() },
					[]string{"1 accept, tier 1 (edit)", "2 accept, tier 2 (commands)", "s send back", "Esc keep planning", "PgUp/PgDn scroll"}},
				{func() {
					h.app.askDialog([]Question{{Text: "Which one?", Options: []string{"this", "that"}}}, 0, nil, make(chan []string, 1))
				},
					[]string{"Which one?", "1-3 choose", "↑/↓ Enter choose", "Esc skip the questions"}},
				{func() { h.app.showHelp() }, []string{"↑/↓ PgUp/PgDn scroll", "Esc close"}},
				{func() { h.app.sessionDialog([]session.Session{{ID: h.app.back.SessionID, Turns: 1, Title: "t"}}) },
					[]string{"↑/↓ choose", "Enter resume", "Esc close"}},
				{func() { h.app.cmdSearch("main") }, []string{"↑/↓ choose", "Enter put @reference in the prompt", "Esc close"}},
			}
			for _, d := range dialogs {
				h.app.app.QueueUpdateDraw(d.open)
				h.waitUntil("the dialog", func() bool { return h.app.modal != "" })
				h.settle()
				checkShown(t, h.waitFor(d.keys[0]), d.keys...)
				h.key(tcell.KeyEscape)
				h.waitUntil("the dialog to close", func() bool { return h.app.modal == "" })
			}
		})
	}
}

// checkShown fails unless the dialog on the screen shows each text whole,
// on one row or wrapped onto the next.
func checkShown(t *testing.T, screen string, texts ...string) {
	t.Helper()
	var in []string
	for _, row := range strings.Split(screen, "\n") {
		if _, rest, ok := strings.Cut(row, "║"); ok {
			rest, _, _ = strings.Cut(rest, "║")
			in = append(in, rest)
		}
	}
	joined := strings.Join(strings.Fields(strings.Join(in, " ")), " ")
	for _, text := range texts {
		if !strings.Contains(joined, text) {
			t.Errorf("%q is not in the dialog:\n%s", text, screen)
		}
	}
}

// checkMarked fails unless every dialog row that shows word starts, inside
// the frame, with mark.
func checkMarked(t *testing.T, screen, word string, mark rune) {
	t.Helper()
	rows := 0
	for _, row := range strings.Split(screen, "\n") {
		_, in, ok := strings.Cut(row, "║")
		if !ok || !strings.Contains(in, word+" ") && !strings.HasSuffix(strings.TrimSpace(strings.TrimRight(in, "║ ")), word) {
			continue
		}
		rows++
		if first := []rune(strings.TrimLeft(in, " ")); len(first) == 0 || first[0] != mark {
			t.Errorf("a row of the %q line lost its %c marker: %q\n%s", word, mark, row, screen)
		}
	}
	if rows < 2 {
		t.Errorf("the %q line did not wrap (%d rows):\n%s", word, rows, screen)
	}
}

// TestSessionsListFitsItsWidth: the sessions list keeps each session's
// first prompt, what tells them apart, and its turns whole at 60 columns
// (dropping the model, then the start), shows every field at 120, and
// lays its rows out again on a resize. At 60 columns it used to show the
// id, start and model, and cut the turns and the prompt off.
func TestSessionsListFitsItsWidth(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.resize(120, 30)
	started := time.Date(2026, 11, 27, 9, 30, 0, 0, time.Local)
	list := []session.Session{
		{ID: h.app.back.SessionID, Model: "qwen3:8b", Turns: 3, Started: started, Title: "fix the flaky test in agent"},
		{ID: "20261126-0800-beef", Model: "qwen3:8b", Turns: 1, Started: started, Title: "rename the config keys"},
	}
	h.app.app.QueueUpdateDraw(func() { h.app.sessionDialog(list) })
	s := h.waitFor("fix the flaky test in agent")
	checkShown(t, s, "Nov 27 09:30", "qwen3:8b", "3 turns", "fix the flaky test in agent", "1 turn rename the config keys")
	h.resize(60, 24)
	s = h.waitFor("fix the flaky")
	t.Logf("sessions at 60 columns:\n%s", s)
	checkShown(t, s, "20261126-0800-beef", "1 turn rename the config keys", "3 turns fix the flaky")
}

// TestDoctorReportWrapsUnderItsText: at 60 columns /doctor's long lines
// wrap onto rows that start under their text, so the label column stays
// a column; they started at the left edge, among the labels.
func TestDoctorReportWrapsUnderItsText(t *testing.T) {
	t.Parallel()
	report := "Ollama      ✓ http://127.0.0.1:11434 (version 0.17.4)\n" +
		"VRAM        ! 8.0 GB assumed, not measured (no nvidia-smi): the window above may not fit your GPU\n" +
		"              VRAM 8.0 GiB − weights 5.9 GiB = 2.1 GiB left for the KV cache of the model\n"
	h := newHarness(t, withDeps(func(d *Deps) {
		d.Doctor = func(context.Context) (string, error) { return report, nil }
	}))
	h.online()
	h.resize(60, 24)
	h.send("/doctor")
	s := h.waitFor("for the KV cache")
	t.Logf("/doctor at 60 columns:\n%s", s)
	for _, row := range strings.Split(s, "\n") {
		for _, cont := range []string{"the window above", "for the KV cache"} {
			if strings.Contains(row, cont) && !strings.HasPrefix(row, strings.Repeat(" ", 14)) {
				t.Errorf("a wrapped row does not start under the text: %q", row)
			}
		}
	}
}

// TestSearchResultsShowWholePaths: the search results show each hit's
// path and lines whole, what Enter puts into the prompt, at 60 columns
// (the score left out, the symbol in what is left) and at 120 (a column
// as wide as the longest). Both cut them at 40 cells before.
func TestSearchResultsShowWholePaths(t *testing.T) {
	t.Parallel()
	long := SearchHit{Path: "cmd/tern/internal/checkpoint/checkpoint.go", StartLine: 28, EndLine: 55, Symbol: "function Find", Score: 0.648}
	short := SearchHit{Path: "session/store.go", StartLine: 72, EndLine: 100, Symbol: "function Open", Score: 0.841}
	h := newHarness(t, withDeps(func(d *Deps) { d.Search = &fakeSearch{hits: []SearchHit{short, long}} }))
	h.online()
	h.resize(120, 30)
	h.send("/search open")
	s := h.waitFor("checkpoint.go:28-55")
	checkShown(t, s, "cmd/tern/internal/checkpoint/checkpoint.go:28-55 function Find 0.648", "session/store.go:72-100")
	h.resize(60, 24)
	s = h.waitFor("session/store.go:72-100  function Open")
	t.Logf("search at 60 columns:\n%s", s)
	checkShown(t, s, "cmd/tern/internal/checkpoint/checkpoint.go:28-55")
}
