package tui

import (
	"fmt"

	"github.com/ternhq/tern/agent"
)

// Escalator hands turns to a larger model (/escalate); *agent.Agent
// satisfies it. Its methods are called between turns only.
type Escalator interface {
	// Escalation names the larger model, "" when none is configured.
	Escalation() string
	// EscalateNext runs the next turn on it; false when there is none.
	EscalateNext() bool
}

// cmdEscalate is /escalate [PROMPT]: the next turn, or PROMPT's now, runs
// on the escalation model; the session's model takes the turn after.
func (a *App) cmdEscalate(arg string) {
	if !a.ready("escalate") {
		return
	}
	e := a.back.Escalator
	if e == nil || e.Escalation() == "" {
		a.fail("no model to escalate to: set escalate_model in the config (a larger installed model, or one on escalate_host); /doctor checks it")
		return
	}
	if !e.EscalateNext() {
		a.fail("the escalation model cannot be used; /doctor says why")
		return
	}
	name := e.Escalation()
	a.escalateArmed = name
	if arg == "" {
		a.note(fmt.Sprintf("your next prompt runs on %s; %s takes the turn after", name, a.back.Model))
		return
	}
	a.conv.add(&block{kind: kindUser, short: userLines(a.th, arg)})
	a.conv.toEnd()
	a.startTurn(arg)
}

// escalatedTo shows a turn moving to the escalation model, whose window
// the gauge measures until the turn ends.
func (a *App) escalatedTo(e agent.Escalated) {
	a.escalated, a.escalateArmed = e.Model, ""
	if e.NumCtx > 0 {
		a.window, a.calibrated = e.NumCtx, false
	}
}

// escalationDone gives the status bar back to the session's model after
// an escalated turn: its window, the count an estimate until its next
// request.
func (a *App) escalationDone(e agent.Done) {
	if a.escalated == "" && e.Escalated == "" {
		return
	}
	a.escalated = ""
	if a.back == nil {
		return
	}
	switch {
	case e.Escalated != "" && e.EscalatedTurns >= e.Turns:
		a.note(fmt.Sprintf("%s answered this turn; %s takes the next", e.Escalated, a.back.Model))
	case e.Escalated != "":
		a.note(fmt.Sprintf("%s answered %d of this turn's %d requests; %s takes the next turn", e.Escalated, e.EscalatedTurns, e.Turns, a.back.Model))
	}
	a.window, a.calibrated = a.back.NumCtx, false
}

// modelStatus is the status bar's model: the session's, the model a
// turn escalated to, or the one the next turn will run on.
func (a *App) modelStatus() (text string, busy bool) {
	switch {
	case a.escalated != "":
		return a.back.Model + " → " + a.escalated, true
	case a.escalateArmed != "":
		return a.back.Model + " (next: " + a.escalateArmed + ")", true
	}
	return a.back.Model, false
}
