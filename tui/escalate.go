package tui

import "fmt"

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

// escalatedTo shows a turn moving to the escalation model.
func (a *App) escalatedTo(model string) {
	a.escalated, a.escalateArmed = model, ""
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
