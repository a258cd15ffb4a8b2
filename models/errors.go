package models

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors a backend wraps, so callers can branch on the condition
// and still print the backend's own words.
var (
	// ErrUnreachable: nothing answers at the configured host.
	ErrUnreachable = errors.New("model server unreachable")
	// ErrModelNotFound: the named model is not installed.
	ErrModelNotFound = errors.New("model not found")
	// ErrNoTools: the model rejected native tools (it lacks the capability).
	ErrNoTools = errors.New("model does not support tools")
	// ErrNoThinking: thinking was asked of a model without the capability.
	ErrNoThinking = errors.New("model does not support thinking")
	// ErrToolParse: the server failed to parse the model's own tool-call text
	// (an HTTP 500 or an error line whose message IsToolParseMessage
	// recognises). Retrying in the text tool protocol lets tern parse the
	// raw text itself.
	ErrToolParse = errors.New("server could not parse the model's tool call")
	// ErrIncomplete: the reply stream ended before the server said it was done.
	ErrIncomplete = errors.New("reply stream ended early")
	// ErrBusy: the server refused the request for now (Ollama's HTTP 503
	// "server busy, please try again"); a later attempt may succeed.
	ErrBusy = errors.New("model server busy")
	// ErrRunnerCrashed: the process running the model died, while loading
	// it or while generating ("llama runner process has terminated", "an
	// error was encountered while running the model"). A second attempt
	// starts a new runner.
	ErrRunnerCrashed = errors.New("model runner crashed")
	// ErrStalled: the server stopped answering (no response headers, or a
	// reply stream silent for too long).
	ErrStalled = errors.New("model server stopped answering")
	// ErrNoAnswer: the server took the connection but did not answer a
	// question about itself (its version, its models, a model's details)
	// within the contact timeout: something listens there that is stuck,
	// or is not a model server.
	ErrNoAnswer = errors.New("model server does not answer")
	// ErrReplyTooLong: the reply went on far past its limits (a server that
	// ignores num_predict, a stream that never ends); what arrived is kept.
	ErrReplyTooLong = errors.New("reply too long")
)

// NoAnswerError is a question about the server (its version, its models,
// a model's details) that the server took and did not answer in time. It
// is ErrNoAnswer.
type NoAnswerError struct {
	// What names the question ("ollama list", "GET /v1/models"), Host the
	// server asked, and After the time waited.
	What  string
	Host  string
	After time.Duration
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("%s: %s took the connection but sent no answer within %s", e.What, e.Host, e.After)
}

// Is makes a NoAnswerError match ErrNoAnswer.
func (e *NoAnswerError) Is(target error) bool { return target == ErrNoAnswer }
