package disclosure

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// locked stands in for a tool of a locked tier. It never runs anything: its
// result tells the model how to unlock the tool, or that the user does not
// allow it. It reports itself as executing, so that the agent runs it
// alone and in call order — after a request_tools call earlier in the same
// reply, which may have unlocked the real tool in the meantime — and it
// refuses in review, so the user is never asked to approve it.
type locked struct {
	name      string
	tier, max Tier
}

// The agent finds the review by type assertion: keep it.
var _ tools.Reviewer = (*locked)(nil)

func (l *locked) Spec() models.ToolSpec {
	return models.ToolSpec{Name: l.name, Description: "locked", Parameters: models.Schema()}
}

func (l *locked) Effect() tools.Effect { return tools.Executes }

func (l *locked) Review(context.Context, json.RawMessage) tools.Review {
	r := l.result()
	return tools.Review{Refused: &r}
}

func (l *locked) Run(context.Context, tools.Input) tools.Result { return l.result() }

func (l *locked) result() tools.Result {
	if l.tier > l.max {
		return tools.Result{IsError: true, Summary: l.name + ": not allowed",
			Output: fmt.Sprintf("%s is not available: the user limited this session to %s. Do the task with the tools you have, or tell the user what you need.", l.name, l.max)}
	}
	return tools.Result{IsError: true, Summary: l.name + ": locked",
		Output: fmt.Sprintf(`%s is in %s, which is locked. Call request_tools with {"tier": %d, "reason": "…"} first, then call %s again.`, l.name, l.tier, l.tier, l.name)}
}
