package agent

import (
	"fmt"
	"time"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
)

// A small model that gets stuck often has a larger one beside it: another
// installed model, or one on another server. With an Escalation the loop
// guard hands the turn to it instead of stopping, and the user can ask for
// it (EscalateNext). The next request goes to the larger model with its
// own window, prompt and tool protocol, the history fitted to that window;
// when the turn ends, the session's model takes over again. Each model
// keeps its own calibration and tool-protocol state. Loading one model may
// unload the other: the server decides, and the load times are shown.

// Escalation is the model a turn escalates to, wired like the session's
// own (cmd/tern builds it from escalate_model).
type Escalation struct {
	// Client serves the model; Name is the model's name, Where the
	// server's address when it is not the session's ("" when it is).
	Client chatModel
	Name   string
	Where  string
	// NumCtx is its window, planned for it; System its system prompt.
	NumCtx int
	System string
	// The tool protocol and settings for it, as Config has them.
	TextTools, Constrained, OneToolPerReply bool
	ToolFormat                              string
	Think                                   string
	Temperature                             *float64
	// Calibration is its token-count correction learnt so far.
	Calibration budget.Calibration
}

// Escalated is the event of a turn moving to the escalation model: the
// status bar shows it until the turn is Done.
type Escalated struct {
	Model  string `json:"model"`
	NumCtx int    `json:"num_ctx"`
	// Why says what made the turn move: the loop guard's reason, or that
	// the user asked.
	Why string `json:"why"`
}

// Type names the event in NDJSON output.
func (Escalated) Type() string { return "escalated" }

// seat is the model requests go to, with all that depends on it.
type seat struct {
	model                                   chatModel
	name                                    string
	numCtx, reserve                         int
	system                                  string
	textTools, constrained, oneToolPerReply bool
	toolFormat, think                       string
	temperature                             *float64
	win                                     budget.Window
	mode                                    toolMode
	stalledAt                               int
}

// seat is the agent's current model and its state.
func (a *Agent) seat() seat {
	return seat{
		model: a.model, name: a.cfg.Model, numCtx: a.cfg.NumCtx, reserve: a.cfg.Reserve, system: a.cfg.System,
		textTools: a.cfg.TextTools, constrained: a.cfg.Constrained, oneToolPerReply: a.cfg.OneToolPerReply,
		toolFormat: a.cfg.ToolFormat, think: a.cfg.Think, temperature: a.cfg.Temperature,
		win: a.win, mode: a.mode, stalledAt: a.stalledAt,
	}
}

// sit makes s the agent's current model. The prefix's count is made
// again: the system prompt and tools may differ.
func (a *Agent) sit(s seat) {
	a.model, a.cfg.Model, a.cfg.NumCtx, a.cfg.Reserve, a.cfg.System = s.model, s.name, s.numCtx, s.reserve, s.system
	a.cfg.TextTools, a.cfg.Constrained, a.cfg.OneToolPerReply = s.textTools, s.constrained, s.oneToolPerReply
	a.cfg.ToolFormat, a.cfg.Think, a.cfg.Temperature = s.toolFormat, s.think, s.temperature
	a.win, a.mode, a.stalledAt = s.win, s.mode, s.stalledAt
	a.prefixKey, a.prefixCost = "\xff", 0
}

// escalationSeat is the seat of e, fresh.
func escalationSeat(e *Escalation) seat {
	format := e.ToolFormat
	if format == "" {
		format = models.FormatTagged
	}
	reserve := budget.DefaultReserve(e.NumCtx)
	return seat{
		model: e.Client, name: e.Name, numCtx: e.NumCtx, reserve: reserve, system: e.System,
		textTools: e.TextTools || e.Constrained, constrained: e.Constrained, oneToolPerReply: e.OneToolPerReply,
		toolFormat: format, think: e.Think, temperature: e.Temperature,
		win: budget.Window{NumCtx: e.NumCtx, Reserve: reserve, Calibration: e.Calibration},
	}
}

// Escalation names the model turns escalate to, "" when there is none.
func (a *Agent) Escalation() string {
	if a.cfg.Escalate == nil {
		return ""
	}
	return a.cfg.Escalate.Name
}

// EscalateNext makes the next turn run on the escalation model from its
// first request (/escalate, tern ask --escalate); on reports whether it
// will, false when there is no escalation model.
func (a *Agent) EscalateNext() (on bool) {
	a.escalateNext = a.cfg.Escalate != nil
	return a.escalateNext
}

// EscalationArmed reports whether the next turn will run on the
// escalation model.
func (a *Agent) EscalationArmed() bool { return a.escalateNext }

// canEscalate reports whether turn t may still move to the escalation
// model.
func (a *Agent) canEscalate(t *turn) bool { return a.cfg.Escalate != nil && t.escalatedTo == "" }

// escalate moves turn t to the escalation model, why being the reason in
// words. The loop guard starts afresh for the new model; what it counted
// of calls stays, so a call the first model repeated is not run a third
// time.
func (a *Agent) escalate(t *turn, why string, send func(Event)) {
	e := a.cfg.Escalate
	if a.escalation == nil {
		s := escalationSeat(e)
		a.escalation = &s
	}
	t.mainSeat = a.seat()
	a.sit(*a.escalation)
	a.escalated = true
	t.escalatedTo, t.escalatedAfter = e.Name, t.done.Turns
	g := t.guard
	clear(g.strikes)
	g.stop, g.restrict = "", false
	where := ""
	if e.Where != "" {
		where = " at " + e.Where
	}
	send(Notice{Level: Warn, Text: fmt.Sprintf("%s: %s%s takes over this turn (window %d tokens); %s resumes after it",
		why, e.Name, where, e.NumCtx, t.mainSeat.name)})
	send(Escalated{Model: e.Name, NumCtx: e.NumCtx, Why: why})
}

// escalateStuck moves turn t to the escalation model instead of stopping
// it as stuck in kind's way; false when it cannot (none, or already
// there).
func (a *Agent) escalateStuck(t *turn, kind loopKind, send func(Event)) bool {
	if !a.canEscalate(t) {
		return false
	}
	a.escalate(t, fmt.Sprintf("%s is stuck (%s)", a.cfg.Model, kind.stuckWords()), send)
	return true
}

// endEscalation gives the session's model back at the end of turn t,
// keeping what the escalation model learnt for its next turn.
func (a *Agent) endEscalation(t *turn) {
	if t.escalatedTo == "" {
		return
	}
	s := a.seat()
	a.escalation = &s
	a.sit(t.mainSeat)
	a.escalated = false
	a.reloadWatch = t.mainSeat.name
}

// noteLoad says how long a model took to load when it had to be loaded
// because of an escalation: the first reply of the escalation model, and
// the session model's first after it.
func (a *Agent) noteLoad(t *turn, load time.Duration, send func(Event)) {
	switch {
	case t.escalatedTo != "" && !t.loadNoted:
		t.loadNoted = true
		if load >= time.Second/10 {
			send(Notice{Level: Info, Text: fmt.Sprintf("%s loaded in %.1f s (the server unloads the other model when both do not fit)", a.cfg.Model, load.Seconds())})
		}
	case t.escalatedTo == "" && a.reloadWatch != "":
		if load >= time.Second/10 {
			send(Notice{Level: Info, Text: fmt.Sprintf("%s loaded again in %.1f s after the escalation", a.reloadWatch, load.Seconds())})
		}
		a.reloadWatch = ""
	}
}
