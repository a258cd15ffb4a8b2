package agent

import (
	"fmt"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
)

// This file keeps every request inside the window: it counts messages as
// they are sent, cuts a message too large for the window when it enters the
// history, assembles each request under the calibrated budget plan, and
// sizes tool outputs to what the turn leaves free.
//
// Counting needs the cl100k encoder, which takes about 100 ms of CPU to
// build: more than all the rest of a one-turn `tern ask` before its
// request. So a new agent starts bounded: it enters each message, and the
// prefix, at an upper bound of its count (its length in bytes, see
// budget.Bound) instead of the count. Every decision taken with bounds is
// one the counts could only confirm: a message within its limit by bound
// is within it by count, a prefix that leaves enough room by bound leaves
// it by count, and a history that fits whole by bounds is sent whole, as
// the counts would have sent it (budget.Whole). The first decision that
// bounds cannot take (a message to cut, a history that may not fit, a
// tool output to size, retrieval to pack, a plan to show) settles the
// agent: everything is counted and counts are exact from then on. A
// request sent bounded starts building the encoder, and its plan and
// estimate are counted when the reply is in, before calibration learns
// from them.

// wireMeter counts messages in the form turn t (nil between turns) sends
// them: in the text tool protocol, calls and results travel as text.
type wireMeter struct {
	a *Agent
	t *turn
}

func (w wireMeter) Count(s string) int                 { return w.a.counter.Count(s) }
func (w wireMeter) MessageTokens(m models.Message) int { return w.a.cost(w.t, m) }

// cost is tern's count of m as turn t sends it.
func (a *Agent) cost(t *turn, m models.Message) int {
	return a.counter.MessageTokens(a.wire(t, m))
}

// charge is what m enters the history's costs at: its cost, or an upper
// bound of it while the agent is bounded.
func (a *Agent) charge(t *turn, m models.Message) int {
	if a.bounded {
		return a.counter.(BoundingCounter).MessageBound(a.wire(t, m))
	}
	return a.cost(t, m)
}

// wire is m in the form turn t sends it.
func (a *Agent) wire(t *turn, m models.Message) models.Message {
	if a.textTools(t) && (m.Role == models.RoleTool || len(m.ToolCalls) > 0) {
		m = textProtocol([]models.Message{m}, a.cfg.ToolFormat)[0]
	}
	return m
}

// settle ends the bounded start (see the top of this file): the history's
// costs and the prefix's are counted, in the form turn t sends them, and
// counts are exact from now on. The messages are the ones admitted: none
// was cut while bounded.
func (a *Agent) settle(t *turn) {
	if !a.bounded {
		return
	}
	a.bounded = false
	for i, m := range a.history {
		a.costs[i] = a.cost(t, m)
	}
	a.prefixKey = "\xff" // count it again
}

// room is what the conversation may take of the window, in the model's
// tokens: the window less the reply's reserve, the prefix and the code
// retrieved for turn t. While the agent is bounded it is at most that.
func (a *Agent) room(t *turn) int {
	return a.win.Room(a.prefixTokens(t) + t.codeCost())
}

// admitLimit is the most a message may cost when it enters the history.
func (a *Agent) admitLimit(t *turn) int { return a.win.Tern(max(a.room(t)/2, 64)) }

// admit prepares m for the in-memory history and counts it. A message
// larger than half the room (a pasted file, a tool that ignored its cap) is
// cut to that, head and tail kept with a note, and the user told; the
// store keeps it whole.
func (a *Agent) admit(t *turn, m models.Message) (models.Message, int) {
	c := a.charge(t, m)
	if a.bounded && c > a.admitLimit(t) {
		a.settle(t)
		c = a.cost(t, m)
	}
	limit := a.admitLimit(t)
	if c <= limit {
		return m, c
	}
	short, sc, cut := budget.ShortenMessage(wireMeter{a, t}, m, c, limit)
	if !cut {
		return m, c
	}
	what := "a reply"
	switch m.Role {
	case models.RoleUser:
		what = "your message"
	case models.RoleTool:
		what = "the output of " + m.ToolName
	}
	a.notices = append(a.notices, Notice{Level: Warn, Text: fmt.Sprintf(
		"%s is about %d tokens, too large for the %d-token window; the model gets its start and end (%d tokens) with a note",
		what, a.win.Model(c), a.win.NumCtx, a.win.Model(sc))})
	return short, sc
}

// assemble chooses what turn t's next request carries: the prefix, then as
// much of the history as fits next to the reply's reserve, by calibrated
// count.
// While the agent is bounded, the messages are the ones the counts would
// choose, and the plan's numbers are bounds.
func (a *Agent) assemble(t *turn) budget.Assembly {
	in := a.input(t)
	if a.bounded && !budget.Whole(in) {
		a.settle(t)
		in = a.input(t)
	}
	return budget.Assemble(wireMeter{a, t}, in)
}

func (a *Agent) input(t *turn) budget.Input {
	return budget.Input{
		Window: a.win.Size(), Reserve: a.win.Reserve, Calibration: a.win.Calibration,
		Prefix: a.prefixTokens(t), Retrieval: t.codeCost(), History: a.history, Costs: a.costs,
	}
}

// Plan returns how the next request would spend the window, for a status
// bar or `tern prompt`.
func (a *Agent) Plan() budget.Plan {
	a.settle(nil)
	return a.assemble(nil).Plan
}

// Calibration returns the token-count correction learnt for the model.
func (a *Agent) Calibration() budget.Calibration { return a.win.Calibration }

// outputLimit is the byte cap for each of n tool outputs about to be
// produced, from what turn t leaves of the room: earlier turns can be
// compacted or dropped, the current one cannot.
func (a *Agent) outputLimit(t *turn, n int) int {
	a.settle(t)
	turn := 0
	for i := len(a.history) - 1; i >= 0; i-- {
		turn += a.costs[i]
		if a.history[i].Role == models.RoleUser {
			break
		}
	}
	return budget.OutputLimit(a.room(t)-a.win.Model(turn), n)
}

// minRoomShare is the least share of the window the conversation should
// have; below it the user is told once to use a larger window.
const minRoomShare = 0.25

// flushNotices sends the notices queued while the history changed, and
// says so once when the prefix leaves the conversation too little room.
func (a *Agent) flushNotices(t *turn, send func(Event)) {
	short := func() bool { return float64(a.room(t)) < minRoomShare*float64(a.win.Size()) }
	if !a.roomWarned && a.bounded && short() {
		a.settle(t) // a bound says short; only the count can say so
	}
	if !a.roomWarned && short() {
		a.roomWarned = true
		room := a.room(t)
		send(Notice{Level: Warn, Text: fmt.Sprintf(
			"the system prompt and tools take %d of the %d-token window and the reply keeps %d, leaving %d for the conversation; a larger --ctx would help",
			a.win.Model(a.prefixTokens(t)), a.win.NumCtx, a.win.Reserve, max(room, 0))})
	}
	for _, n := range a.notices {
		send(n)
	}
	a.notices = a.notices[:0]
}
