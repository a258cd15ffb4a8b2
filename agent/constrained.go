package agent

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/models"
)

// The constrained tool mode holds every reply to a JSON schema: one call of
// an offered tool, with that tool's arguments, or the final answer
// (models.ConstrainedSchema). The server enforces it while sampling, so a
// malformed call cannot be produced at all. It costs what the schema leaves
// out: prose next to a call, several calls in one reply, and thinking
// (turned off, since Ollama applies the grammar to the whole output). So
// it is not the default: a session uses it when asked (--tool-mode
// constrained, or a profile's tool_mode), and, in auto, moves to it by
// itself when the model's replies twice needed a correction because they
// were neither an answer nor a readable call.

// switchAfterUnread is how many corrected replies that were not plain
// prose and held no readable call move a session to the constrained mode.
const switchAfterUnread = 2

// constrained reports whether requests are held to the reply schema.
func (a *Agent) constrained() bool { return a.cfg.Constrained || a.mode.constrained }

// Constrained reports whether the session uses the constrained tool mode,
// from the start or since it moved to it.
func (a *Agent) Constrained() bool { return a.constrained() }

// callFormat is how calls are written for the model: in its family's text
// format, or as the constrained mode's JSON object.
func (a *Agent) callFormat() string {
	return models.CallFormat(a.cfg.ToolFormat, a.constrained())
}

// constrain holds a request of turn t to the reply schema of the tools it
// offers.
func (a *Agent) constrain(t *turn, req *models.Request) {
	if !a.constrained() {
		return
	}
	all := a.offered(t, a.tools.All())
	specs := make([]models.ToolSpec, len(all))
	for i, tl := range all {
		specs[i] = tl.Spec()
	}
	req.Format = models.ConstrainedSchema(specs, a.limits())
	req.Options.Think = ""
	// The grammar decides where the reply ends (after the closing brace);
	// the template's stop strings could cut it inside a string, where the
	// grammar allows their text. A control character never appears in a
	// reply the grammar allows.
	req.Options.Stop = []string{"\u0001"}
}

// limits bound the strings of a constrained reply to the reply reserve.
func (a *Agent) limits() models.ConstrainedLimits {
	return models.ConstrainedLimitsFor(a.allSpecs(), a.win.Reserve)
}

// read reads a reply in the session's tool mode: in the constrained
// mode, as the schema's object (a call or the answer); else as
// models.ReadReply reads any reply.
func (a *Agent) read(m models.Message) models.Reading {
	if !a.constrained() {
		return models.ReadReply(m, a.allSpecs())
	}
	r := models.Reading{Recovery: models.RepairConstrainedReply(m, a.allSpecs(), a.limits())}
	switch {
	case len(r.Calls) > 0:
		r.Kind = models.ReplyCalls
	case r.Broken != "":
		r.Kind, r.Tool = models.ReplyBroken, r.BrokenTool
	}
	return r
}

// maybeConstrain moves the session to the constrained mode once replies
// that were not plain prose and held no readable call were corrected
// switchAfterUnread times, unless the tool mode was asked for, and
// reports whether it did.
func (a *Agent) maybeConstrain(ctx context.Context, send func(Event)) bool {
	if a.constrained() || a.cfg.FixedToolMode || a.mode.unread < switchAfterUnread {
		return false
	}
	why := fmt.Sprintf("%s wrote %d replies that were neither an answer nor a readable tool call", a.cfg.Model, a.mode.unread)
	a.mode.constrained, a.mode.switched = true, true
	send(Notice{Level: Warn, Text: why + "; holding its replies to a JSON schema for the rest of the session (--tool-mode constrained)"})
	a.recordMode(ctx, "constrained", why)
	return true
}
