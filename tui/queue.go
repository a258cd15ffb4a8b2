package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// This file queues the prompts sent while the agent works. They wait in
// view above the prompt, in order, and each is sent once the agent is
// free: its turn over, no dialog open, the model connected. Esc or
// Ctrl+C cancels the queue before the turn: the queued prompts go back
// into the prompt, so nothing typed is lost.

// queueShown is how many queued prompts the view lists before it sums up
// the rest.
const queueShown = 3

// enqueue keeps prompt to send after the running job.
func (a *App) enqueue(prompt string) {
	a.queue = append(a.queue, prompt)
	a.queueChanged()
	a.setHint(fmt.Sprintf("queued; sent when %s is done · Esc cancels the queue", a.job.kind))
}

// queueChanged sizes the queue's view to what it lists.
func (a *App) queueChanged() {
	a.layout.ResizeItem(a.queueView, len(a.queueLines(1000)), 0)
}

// queueLines are the queue view's rows: one a queued prompt, the rest
// summed up.
func (a *App) queueLines(width int) [][]span {
	th := a.th
	var rows [][]span
	for i, p := range a.queue {
		if i == queueShown && len(a.queue) > queueShown+1 {
			rows = append(rows, []span{{text: fmt.Sprintf("  … %d more queued", len(a.queue)-queueShown), style: th.dim}})
			break
		}
		mark := fmt.Sprintf("  queued %d  ", i+1)
		rows = append(rows, []span{{text: mark, style: th.busy}, {text: oneLine(p, max(width-textWidth(mark), 1)), style: th.dim}})
	}
	return rows
}

// drainQueue sends the next queued prompt if the agent is free. It runs
// as a posted update after whatever freed the agent, so that a dialog
// that the end of a turn opens is seen first.
func (a *App) drainQueue() {
	a.pump.post(func() {
		if len(a.queue) == 0 || a.job != nil || a.modal != "" || a.back == nil || a.quitting {
			return
		}
		next := a.queue[0]
		a.queue = a.queue[1:]
		a.queueChanged()
		a.send(next)
	})
}

// cancelQueue puts the queued prompts back into the prompt, before what
// it holds, and reports whether there were any.
func (a *App) cancelQueue() bool {
	if len(a.queue) == 0 {
		return false
	}
	n := len(a.queue)
	text := strings.Join(a.queue, "\n")
	if cur := a.input.GetText(); cur != "" {
		text += "\n" + cur
	}
	a.queue = nil
	a.queueChanged()
	a.input.SetText(text, true)
	what := "the queued prompt is"
	if n > 1 {
		what = fmt.Sprintf("the %d queued prompts are", n)
	}
	a.setHint("queue cancelled: " + what + " back in the prompt")
	return true
}

// queueBox is the queue's view above the prompt: a row a queued prompt.
type queueBox struct {
	*tview.Box
	a *App
}

func (a *App) newQueueView() *queueBox { return &queueBox{Box: a.th.plain(tview.NewBox()), a: a} }

func (q *queueBox) Draw(screen tcell.Screen) {
	q.Box.DrawForSubclass(screen, q)
	x, y, w, h := q.GetInnerRect()
	for i, row := range q.a.queueLines(w) {
		if i >= h {
			break
		}
		drawSpans(screen, x, y+i, w, row, q.a.th.text)
	}
}
