package agent

import (
	"context"
	"time"

	"github.com/ternhq/tern/models"
)

// CancelledNote ends a reply the user cancelled while it streamed.
const CancelledNote = "\n[cancelled: the user stopped this reply]"

// interruptedResult answers, in a history, a tool call whose result was
// never recorded: the turn was cancelled or tern was killed while it ran.
const interruptedResult = "not run or not finished: the turn was interrupted (cancelled, or tern stopped) before this call had a result"

// closeCalls returns history with a result after every tool call that has
// none, so that no request ever carries a call without its answer (models
// and servers reject or misread such a history).
func closeCalls(history []models.Message) []models.Message {
	var out []models.Message
	var open []models.ToolCall
	flush := func() {
		for _, c := range open {
			out = append(out, models.Message{Role: models.RoleTool, Content: interruptedResult, ToolName: c.Name, ToolCallID: c.ID})
		}
		open = nil
	}
	for _, m := range history {
		switch {
		case m.Role == models.RoleTool:
			for i, c := range open {
				if c.ID == m.ToolCallID || m.ToolCallID == "" && c.Name == m.ToolName {
					open = append(open[:i:i], open[i+1:]...)
					break
				}
			}
		default:
			flush()
		}
		out = append(out, m)
		if m.Role == models.RoleAssistant {
			open = append(open, m.ToolCalls...)
		}
	}
	flush()
	return out
}

// partialEvery is how often the text of a streaming reply is saved: a
// crash loses at most this much of it.
const partialEvery = 500 * time.Millisecond

// partial saves a streaming reply's text at a bounded rate.
type partial struct {
	a     *Agent
	text  []byte
	saved time.Time
}

func (a *Agent) newPartial() *partial { return &partial{a: a, saved: a.now()} }

// add appends streamed text and saves it all when the last save is
// partialEvery old.
func (p *partial) add(ctx context.Context, s string) {
	ps, ok := p.a.rec.(PartialSaver)
	if !ok || s == "" {
		return
	}
	p.text = append(p.text, s...)
	if now := p.a.now(); now.Sub(p.saved) >= partialEvery {
		p.saved = now
		if err := ps.SavePartial(context.WithoutCancel(ctx), p.a.cfg.SessionID, string(p.text)); err != nil {
			p.a.log.Error("save partial reply", "err", err)
			return
		}
		p.a.partialSaved = true
	}
}

// clearPartial drops the saved partial reply once the reply is a message.
func (a *Agent) clearPartial(ctx context.Context) {
	ps, ok := a.rec.(PartialSaver)
	if !ok || !a.partialSaved {
		return
	}
	a.partialSaved = false
	if err := ps.SavePartial(context.WithoutCancel(ctx), a.cfg.SessionID, ""); err != nil {
		a.log.Error("clear partial reply", "err", err)
	}
}
