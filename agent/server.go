package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

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
		if !a.pause(ctx, wait) {
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
		if text, ok := a.readableInError(err); ok {
			// The server quoted what the model wrote, and tern can read
			// the call in it: the reply is that text, read as any other.
			send(Notice{Level: Info, Text: "the server could not parse the model's tool call (" + headOf(serverWords(err), 120) + "); tern read it from the server's error"})
			reply.Message = models.Message{Role: models.RoleAssistant, Content: text, Thinking: reply.Message.Thinking}
			a.serverParseFailed(ctx, send)
			return reply, usage, nil
		}
		if !a.textTools(t) {
			reply, usage, err = a.retryAsText(ctx, t, send, "the server could not parse the model's tool call")
		}
		if errors.Is(err, models.ErrToolParse) {
			// Models with a built-in parser have their output parsed
			// whatever the protocol: the call itself must change, so the
			// model is corrected as for any unreadable call.
			t.unparsed = "the server could not parse it (" + serverWords(err) + ")"
			return models.Reply{Message: models.Message{Role: models.RoleAssistant}}, nil, nil
		}
		return reply, usage, err
	case err == nil && a.droppedCall(t, reply):
		return a.retryAsText(ctx, t, send, fmt.Sprintf(
			"the reply came back empty after %d generated tokens: the server dropped a tool call it could not parse", reply.Metrics.EvalTokens))
	}
	return reply, usage, err
}

// quotedOutput finds the model's own text in a server's parse error:
// Ollama's raw='…', llama.cpp's "at pos N: …", else from the first
// markup or JSON on.
var quotedOutput = regexp.MustCompile(`(?s)raw='(.*)'(?:, err=.*)?$|at pos(?:ition)? \d+: (.*)$|((?:<|\[|\{).*)$`)

// readableInError returns the model's text quoted in a server's error
// about a tool call it could not parse, when the calls in it fit the
// offered tools: the reply tern reads instead of retrying.
func (a *Agent) readableInError(err error) (string, bool) {
	m := quotedOutput.FindStringSubmatch(serverWords(err))
	if m == nil {
		return "", false
	}
	text := strings.TrimSpace(m[1] + m[2] + m[3])
	if text == "" {
		return "", false
	}
	r := a.read(models.Message{Role: models.RoleAssistant, Content: text})
	if r.Kind != models.ReplyCalls || r.Broken != "" {
		return "", false
	}
	for _, c := range r.Calls {
		if c.Problem != "" {
			return "", false // a call that does not fit is retried, not corrected
		}
	}
	return text, true
}

// headOf is s cut to n bytes at most, on a rune boundary.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
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
