package ollama

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
)

// fail turns an error of the api package into one that wraps the matching
// sentinel of package models and keeps the server's message. what names the
// operation ("ollama chat"), model the model it was about ("" for none).
func (c *Client) fail(ctx context.Context, what, model string, err error) error {
	// A question about the server cut at the contact timeout (question).
	if context.Cause(ctx) == errNoAnswer {
		return &models.NoAnswerError{What: requests[what], Host: c.Host(), After: c.limits.ContactTimeout}
	}
	if model != "" {
		what += " " + model
	}
	// A cancelled request surfaces in many shapes (a *url.Error, a read
	// error the api package swallows, a stream that just ends); ctx says
	// what really happened.
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	if unreachable(err) {
		return fmt.Errorf("%s: %w at %s: %w", what, models.ErrUnreachable, c.Host(), err)
	}
	// The server closed the connection before its answer was complete.
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w: %w", what, models.ErrIncomplete, err)
	}
	var se api.StatusError
	if errors.As(err, &se) {
		msg := se.ErrorMessage
		if msg == "" {
			msg = se.Status
		}
		if sentinel := statusSentinel(se.StatusCode, msg); sentinel != nil {
			// A dead runner's message carries lines of its log: keep the
			// error on one line.
			msg = strings.Join(strings.Fields(msg), " ")
			return fmt.Errorf("%s: %w: %s", what, sentinel, msg)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	// An {"error":…} line inside a 200 stream arrives as a plain error.
	if sentinel := streamSentinel(err.Error()); sentinel != nil {
		return fmt.Errorf("%s: %w: %s", what, sentinel, err.Error())
	}
	return fmt.Errorf("%s: %w", what, err)
}

// parseFailure reads a chat error, raw as the api package returned it
// and wrapped as fail wrapped it, for a request that offered tools: an
// error the server raised while generating (an HTTP 5xx, or an error line
// in the stream) that fail found no condition in and whose words speak of
// parsing, a format, a grammar, JSON or a tool call is its parser failing
// on the model's call (models.IsToolParseFailure), whatever the parser.
func parseFailure(raw, wrapped error, req models.Request) error {
	if len(req.Tools) == 0 || errors.Is(wrapped, models.ErrToolParse) {
		return wrapped
	}
	for _, s := range []error{models.ErrUnreachable, models.ErrIncomplete, models.ErrModelNotFound, models.ErrNoTools,
		models.ErrNoThinking, models.ErrBusy, models.ErrRunnerCrashed, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(wrapped, s) {
			return wrapped
		}
	}
	msg := raw.Error()
	var se api.StatusError
	if errors.As(raw, &se) {
		if se.StatusCode < http.StatusInternalServerError {
			return wrapped
		}
		msg = cmp.Or(se.ErrorMessage, se.Status)
	}
	if !models.IsToolParseFailure(msg, true) {
		return wrapped
	}
	return fmt.Errorf("ollama chat %s: %w: %s", req.Model, models.ErrToolParse, strings.Join(strings.Fields(msg), " "))
}

// requests are the HTTP requests of the questions about the server, by
// the name fail is given.
var requests = map[string]string{
	"ollama version": "GET /api/version",
	"ollama list":    "GET /api/tags",
	"ollama show":    "POST /api/show",
	"ollama ps":      "GET /api/ps",
}

// streamSentinel maps the message of an error line inside a reply stream
// (the server had begun answering with HTTP 200) to a sentinel, or nil.
func streamSentinel(msg string) error {
	switch {
	case runnerCrashed(msg):
		return models.ErrRunnerCrashed
	case models.IsToolParseMessage(msg):
		return models.ErrToolParse
	}
	return nil
}

// runnerCrashed reports whether msg says the runner process died: while
// loading ("llama runner process has terminated: exit status 2", from the
// scheduler; or "model failed to load, …", llm/server.go's words when the
// runner is gone before it takes the load request, which of the two comes
// depends on when the death is seen) or while generating ("an error was
// encountered while running the model: …"), in Ollama v0.17.4.
func runnerCrashed(msg string) bool {
	return strings.Contains(msg, "runner process has terminated") ||
		strings.Contains(msg, "model failed to load") ||
		strings.Contains(msg, "error was encountered while running the model") ||
		strings.Contains(msg, "runner process no longer running")
}

// statusSentinel maps an HTTP error from Ollama v0.17.4 to a sentinel, or nil.
// The texts are the server's (server/routes.go, server/images.go).
func statusSentinel(code int, msg string) error {
	switch {
	case code == http.StatusNotFound:
		// "model 'X' not found", or from the scheduler
		// "model \"X\" not found, try pulling it first".
		return models.ErrModelNotFound
	case code == http.StatusBadRequest && strings.Contains(msg, "does not support tools"):
		// "registry.ollama.ai/library/X:latest does not support tools"
		return models.ErrNoTools
	case code == http.StatusBadRequest && strings.Contains(msg, "does not support thinking"),
		// A thinking level ("low", "high") on a model that only thinks on or
		// off: "think value \"low\" is not supported for this model".
		code == http.StatusBadRequest && strings.HasPrefix(msg, "think value"):
		return models.ErrNoThinking
	case code == http.StatusServiceUnavailable:
		// "server busy, please try again.  maximum pending requests exceeded"
		return models.ErrBusy
	case code >= http.StatusInternalServerError && runnerCrashed(msg):
		return models.ErrRunnerCrashed
	case code == http.StatusInternalServerError && models.IsToolParseMessage(msg):
		// The harmony parser's "error parsing tool call: …", qwen3's
		// "failed to parse JSON: …", a bare "invalid character …".
		return models.ErrToolParse
	}
	return nil
}

// unreachable reports whether err means nothing answered at the host:
// refused or timed-out dials and failed name lookups.
func unreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}
