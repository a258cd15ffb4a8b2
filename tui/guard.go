package tui

import (
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// This file keeps typing meant for the prompt from answering a dialog. An
// approval, the model's question or a plan opens by itself, often while
// the user is typing the next message: the "a" of a word would allow a
// tool for the session. Such a dialog takes no key made before it was
// drawn, nor any made until the keyboard has been quiet for the grace
// period since; those keys go on into the prompt, where they were meant
// to go. The times compared are the key events' own (tcell stamps each
// when it is read from the terminal), so a key that waited in a queue
// while the dialog was being drawn still counts as typed before it.

// defaultKeyGrace is Config.KeyGrace's default: longer than the pause
// between two keys of someone typing, shorter than it takes to read what
// a dialog asks.
const defaultKeyGrace = 500 * time.Millisecond

// keyGuard holds the open dialog's keys back while the user types.
type keyGuard struct {
	on bool
	// shown is when the dialog was first drawn; zero before.
	shown time.Time
	// quiet is when the dialog starts taking keys: the grace period after
	// it was shown or after the last key held back, whichever is later.
	quiet time.Time
	// redraw fires at quiet, to take the notice off the dialog.
	redraw *time.Timer
}

// armGuard starts guarding the dialog just opened.
func (a *App) armGuard() {
	a.stopGuard()
	a.guard = keyGuard{on: true}
}

// stopGuard ends the guard of a dialog that closed.
func (a *App) stopGuard() {
	if a.guard.redraw != nil {
		a.guard.redraw.Stop()
	}
	a.guard = keyGuard{}
}

// dialogDrawn runs after every draw: the first draw of a guarded dialog
// starts its grace period.
func (a *App) dialogDrawn() {
	if a.modal == "" || !a.guard.on || !a.guard.shown.IsZero() {
		return
	}
	a.guard.shown = time.Now()
	a.holdUntil(a.guard.shown.Add(a.cfg.KeyGrace))
}

// holdUntil keeps the dialog's keys back until t (or later, if they are
// held longer already) and schedules the redraw that shows the dialog
// taking keys.
func (a *App) holdUntil(t time.Time) {
	if !t.After(a.guard.quiet) {
		return
	}
	a.guard.quiet = t
	if a.guard.redraw != nil {
		a.guard.redraw.Stop()
	}
	// The timer's goroutine only posts (never blocks): an empty update
	// makes the pump draw.
	a.guard.redraw = time.AfterFunc(time.Until(t)+10*time.Millisecond, func() { a.pump.post(func() {}) })
}

// holds reports whether the open dialog must not take ev.
func (a *App) holds(ev *tcell.EventKey) bool {
	g := a.guard
	return a.modal != "" && g.on && (g.shown.IsZero() || ev.When().Before(g.quiet))
}

// guarding reports whether the open dialog is holding keys back now.
func (a *App) guarding() bool {
	g := a.guard
	return a.modal != "" && g.on && (g.shown.IsZero() || time.Now().Before(g.quiet))
}

// toPrompt gives a key the dialog held back to the prompt: text and the
// keys that edit it go in; Enter does not send (the dialog waits for an
// answer), and other keys are dropped. Each such key restarts the grace
// period.
func (a *App) toPrompt(ev *tcell.EventKey) {
	a.holdUntil(ev.When().Add(a.cfg.KeyGrace))
	switch ev.Key() {
	case tcell.KeyEnter:
		if ev.Modifiers()&(tcell.ModAlt|tcell.ModShift|tcell.ModCtrl) == 0 {
			a.setHint("your prompt is kept: send it once the dialog is answered")
			return
		}
		ev = tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone)
	case tcell.KeyCtrlJ:
		ev = tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone)
	case tcell.KeyRune, tcell.KeyBackspace, tcell.KeyBackspace2, tcell.KeyDelete,
		tcell.KeyLeft, tcell.KeyRight, tcell.KeyHome, tcell.KeyEnd:
	default:
		return
	}
	// The prompt's own key capture would act on the key (? opens the
	// help, which closes the dialog); the text area alone only edits.
	capture := a.input.GetInputCapture()
	a.input.SetInputCapture(nil)
	a.input.InputHandler()(ev, func(tview.Primitive) {})
	a.input.SetInputCapture(capture)
}

// guardLead is the notice a guarded dialog shows above its keys while it
// holds them back.
func (a *App) guardLead() []span {
	if !a.guarding() {
		return nil
	}
	return []span{{text: "typing goes to your prompt; this dialog takes keys once you pause", style: a.th.warn}}
}
