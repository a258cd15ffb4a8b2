package models

import "errors"

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
	// ErrReplyTooLong: the reply went on far past its limits (a server that
	// ignores num_predict, a stream that never ends); what arrived is kept.
	ErrReplyTooLong = errors.New("reply too long")
)
