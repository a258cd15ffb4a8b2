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
	if a.textTools(t) && (m.Role == models.RoleTool || len(m.ToolCalls) > 0) {
		m = textProtocol([]models.Message{m}, a.cfg.ToolFormat)[0]
	}
	return a.counter.MessageTokens(m)
}

// room is what the conversation may take of the window, in the model's
// tokens: the window less the reply's reserve, the prefix and the code
// retrieved for turn t.
func (a *Agent) room(t *turn) int {
	return a.win.Room(a.prefixTokens(t) + t.codeCost())
}

// admit prepares m for the in-memory history and counts it. A message
// larger than half the room (a pasted file, a tool that ignored its cap) is
// cut to that, head and tail kept with a note, and the user told; the
// store keeps it whole.
func (a *Agent) admit(t *turn, m models.Message) (models.Message, int) {
	c := a.cost(t, m)
	limit := a.win.Tern(max(a.room(t)/2, 64))
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
func (a *Agent) assemble(t *turn) budget.Assembly {
	return budget.Assemble(wireMeter{a, t}, budget.Input{
		Window: a.win.Size(), Reserve: a.win.Reserve, Calibration: a.win.Calibration,
		Prefix: a.prefixTokens(t), Retrieval: t.codeCost(), History: a.history, Costs: a.costs,
	})
}

// Plan returns how the next request would spend the window, for a status
// bar or `tern prompt`.
func (a *Agent) Plan() budget.Plan { return a.assemble(nil).Plan }

// Calibration returns the token-count correction learnt for the model.
func (a *Agent) Calibration() budget.Calibration { return a.win.Calibration }

// outputLimit is the byte cap for each of n tool outputs about to be
// produced, from what turn t leaves of the room: earlier turns can be
// compacted or dropped, the current one cannot.
func (a *Agent) outputLimit(t *turn, n int) int {
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
	if room := a.room(t); !a.roomWarned && float64(room) < minRoomShare*float64(a.win.Size()) {
		a.roomWarned = true
		send(Notice{Level: Warn, Text: fmt.Sprintf(
			"the system prompt and tools take %d of the %d-token window and the reply keeps %d, leaving %d for the conversation; a larger --ctx would help",
			a.win.Model(a.prefixTokens(t)), a.win.NumCtx, a.win.Reserve, max(room, 0))})
	}
	for _, n := range a.notices {
		send(n)
	}
	a.notices = a.notices[:0]
}
