package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ternhq/tern/models"
)

// What the real server does that is not an answer and not a failure of
// the turn: a busy queue or a crashed runner (one more try, with a hint),
// a tool call its parser dropped or could not read (one more try in the
// text tool protocol), a reply it cut off because the model kept repeating
// itself (the loop guard's business, in noCalls).

// busyWait is the pause before the one retry of a request Ollama refused
// as busy.
const busyWait = 2 * time.Second

// droppedCallTokens is how many generated tokens an empty reply must
// exceed to count as a dropped call: an end token and a stray newline are
// not a call.
const droppedCallTokens = 2

// answer makes one model request of turn t that fits the window, and
// handles what the server may do instead of answering.
func (a *Agent) answer(ctx context.Context, t *turn, send func(Event)) (models.Reply, *Usage, error) {
	reply, usage, err := a.fittedStep(ctx, t, send)
	if cause, hint, wait := retryable(err); cause != nil && reply.Message.Content == "" && reply.Message.Thinking == "" {
		send(Notice{Level: Warn, Text: hint})
		if !sleep(ctx, wait) {
			return reply, usage, fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		t.retries++
		reply, usage, err = a.fittedStep(ctx, t, send)
		if errors.Is(err, cause) {
			err = fmt.Errorf("%w (the same again when retried)", err)
		}
	}
	switch {
	case errors.Is(err, models.ErrToolParse):
		if !a.textTools(t) {
			reply, usage, err = a.retryAsText(ctx, t, send, "Ollama could not parse the model's tool call")
		}
		if errors.Is(err, models.ErrToolParse) {
			// Models with a built-in parser have their output parsed
			// whatever the protocol: the call itself must change, so the
			// model is corrected as for any unreadable call.
			t.unparsed = "Ollama could not parse it (" + serverWords(err) + ")"
			return models.Reply{Message: models.Message{Role: models.RoleAssistant}}, nil, nil
		}
		return reply, usage, err
	case err == nil && a.droppedCall(t, reply):
		return a.retryAsText(ctx, t, send, fmt.Sprintf(
			"the reply came back empty after %d generated tokens: Ollama dropped a tool call it could not parse", reply.Metrics.EvalTokens))
	}
	return reply, usage, err
}

// retryable says whether a failed request may succeed if made once more:
// the condition, what to tell the user, and how long to wait first.
func retryable(err error) (cause error, hint string, wait time.Duration) {
	switch {
	case err == nil:
	case errors.Is(err, models.ErrBusy):
		return models.ErrBusy, fmt.Sprintf("Ollama is busy (too many requests queued); retrying once in %s", busyWait), busyWait
	case errors.Is(err, models.ErrRunnerCrashed):
		return models.ErrRunnerCrashed, "Ollama's model runner crashed (" + serverWords(err) + "); retrying once. If it crashes again, " +
			"the model may not fit in memory (try a smaller --ctx or model) or its file may be damaged (pull it again); Ollama's server log says which", 0
	}
	return nil, "", 0
}

// serverWords is the server's own message at the end of a wrapped error.
func serverWords(err error) string {
	s := err.Error()
	for _, sentinel := range []error{models.ErrRunnerCrashed, models.ErrBusy, models.ErrToolParse} {
		if _, after, ok := strings.Cut(s, sentinel.Error()+": "); ok {
			return after
		}
	}
	return s
}

// sleep waits d, and reports false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// droppedCall reports whether a reply to a request with native tools is
// empty although the model generated tokens: Ollama's template tool parser
// drops call text whose JSON does not parse (HTTP 200, no content, no
// calls, eval_count > 0), so the model did try to call a tool. Tokens the
// model spent thinking do not count. The request is turn t's last.
func (a *Agent) droppedCall(t *turn, reply models.Reply) bool {
	if a.textTools(t) || len(t.sent.Tools) == 0 {
		return false
	}
	m := reply.Message
	if strings.TrimSpace(m.Content) != "" || len(m.ToolCalls) > 0 ||
		reply.DoneReason == doneThinkingCap || reply.DoneReason == models.DoneRepetition {
		return false
	}
	spent := droppedCallTokens
	if m.Thinking != "" {
		// Small models' tokenizers split finer than the estimate: be generous.
		spent += 2*a.counter.Count(m.Thinking) + 16
	}
	return reply.Metrics.EvalTokens > spent
}

// repetitionNotice tells the user what happened to a reply the server cut
// off for repetition.
const repetitionNotice = "Ollama stopped the reply because the model kept repeating the same words; the text is kept, and the model is told"
