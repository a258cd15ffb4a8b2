package agent

import (
	"context"
	"errors"

	"github.com/ternhq/tern/models"
)

// Thinking is off unless configured. When it is on, a reply's thinking is
// capped: past the budget with no answer begun, the stream is cut and the
// model told to answer, with thinking off for the next request.

// doneThinkingCap is the done reason of a reply cut at the thinking budget.
const doneThinkingCap = "thinking_cap"

// bytesPerToken estimates thinking tokens from streamed bytes; English
// prose runs about four bytes a token.
const bytesPerToken = 4

var errThinkingCap = errors.New("thinking budget spent")

// thinkWatch counts one request's thinking and cuts the stream when it
// runs past the budget before any answer text.
type thinkWatch struct {
	budget  int // bytes; 0 means no cap
	seen    int
	content bool
	cut     bool
	cancel  context.CancelCauseFunc
}

// watch prepares a request's stream: when thinking is on, it returns a
// context the watch may cancel.
func (a *Agent) watch(ctx context.Context, req models.Request) (context.Context, *thinkWatch) {
	w := &thinkWatch{}
	if req.Options.Think == "" || req.Options.Think == "false" {
		return ctx, w
	}
	budget := a.cfg.ThinkBudget
	if budget <= 0 {
		budget = max(a.win.Reserve/2, 256)
	}
	w.budget = budget * bytesPerToken
	ctx, w.cancel = context.WithCancelCause(ctx)
	return ctx, w
}

// delta sees each streamed piece and reports whether it is to be used:
// once the stream is cut, pieces already on their way are not.
func (w *thinkWatch) delta(d models.Delta) bool {
	if w.cut {
		return false
	}
	if d.Content != "" {
		w.content = true
	}
	w.seen += len(d.Thinking)
	if w.budget > 0 && !w.content && w.seen > w.budget {
		w.cut = true
		w.cancel(errThinkingCap)
	}
	return true
}

// finish turns the watch's own cut into a finished reply (done reason
// doneThinkingCap) instead of a cancellation, and releases the context.
func (w *thinkWatch) finish(ctx context.Context, reply models.Reply, err error) (models.Reply, error) {
	if w.cancel == nil {
		return reply, err
	}
	cut := errors.Is(context.Cause(ctx), errThinkingCap)
	w.cancel(nil)
	if cut && err != nil {
		// The cut came before any answer; text that arrived after it is
		// not the model's answer to keep.
		reply.Message.Content, reply.Message.ToolCalls = "", nil
		reply.DoneReason = doneThinkingCap
		return reply, nil
	}
	return reply, err
}

// think is the thinking setting of turn t's next request: the configured
// one, except right after a reply was cut at its thinking budget.
func (a *Agent) think(t *turn) string {
	if t.guard.thinkOff {
		t.guard.thinkOff = false
		return ""
	}
	return a.cfg.Think
}
