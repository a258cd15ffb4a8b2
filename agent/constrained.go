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
// constrained, or a profile's tool_mode), and moves to it by itself when
// calls written as text keep failing to parse.

// switchAfterBrokenText is how many unreadable calls in the text protocol
// move a session to the constrained mode.
const switchAfterBrokenText = 2

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

// repair reads the calls of a reply in the session's tool mode.
func (a *Agent) repair(m models.Message) models.Recovery {
	if a.constrained() {
		return models.RepairConstrainedReply(m, a.allSpecs(), a.limits())
	}
	return models.RepairReply(m, a.allSpecs())
}

// maybeConstrain moves the session to the constrained mode after repeated
// unreadable calls in the text protocol, and reports whether it did.
func (a *Agent) maybeConstrain(ctx context.Context, send func(Event)) bool {
	if a.constrained() || a.mode.brokenText < switchAfterBrokenText {
		return false
	}
	why := fmt.Sprintf("%s wrote %d unreadable tool calls as text", a.cfg.Model, a.mode.brokenText)
	a.mode.constrained, a.mode.switched = true, true
	send(Notice{Level: Warn, Text: why + "; holding its replies to a JSON schema for the rest of the session (--tool-mode constrained)"})
	a.recordMode(ctx, "constrained", why)
	return true
}
