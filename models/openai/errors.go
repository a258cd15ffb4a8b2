package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/ternhq/tern/models"
)

// ErrUnauthorized: the server wants an API key, or refused the one sent.
var ErrUnauthorized = errors.New("the server refused the API key")

// ErrLoading: the server is still loading its model (llama-server answers
// every request but /v1/models with 503 "Loading model" until it has).
var ErrLoading = errors.New("the server is still loading its model")

// ServerError is an error answer of the server: its HTTP status (0 for an
// error sent inside a stream) and its own words.
type ServerError struct {
	Status int
	// Request is the request it answered ("GET /v1/models"); "" for an
	// error sent inside a stream.
	Request string
	Type    string // "invalid_request_error", "BadRequestError", "exceed_context_size_error", …
	Message string
	// PromptTokens and NumCtx are set when the server said how far the
	// prompt exceeded its window (llama-server's n_prompt_tokens and n_ctx,
	// or the numbers in vLLM's message).
	PromptTokens, NumCtx int
}

func (e *ServerError) Error() string {
	if e.Status == 0 {
		return e.Message
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// exceedsContext reports whether the server refused the prompt because it
// does not fit the window: llama-server's error type, or the words of a
// build that has none (older llama-server, vLLM, LM Studio).
func (e *ServerError) exceedsContext() bool {
	if e.Type == "exceed_context_size_error" || e.PromptTokens > 0 {
		return true
	}
	msg := strings.ToLower(e.Message)
	for _, s := range overflowWords {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// overflowWords are the servers' words for a prompt over the window:
// llama-server ("the request exceeds the available context size",
// "input (N tokens) is larger than the max context size"), vLLM ("This
// model's maximum context length is N tokens", in every build) and LM
// Studio ("Trying to keep the first N tokens when context the
// overflows").
var overflowWords = []string{"exceeds the available context size", "larger than the max context size",
	"maximum context length", "when context the overflows"}

// errorBody covers the shapes servers use: {"error":{"message",…}}
// (OpenAI, llama-server, newer vLLM), {"object":"error","message",…}
// (older vLLM), {"error":"text"} (LM Studio, Ollama) and FastAPI's
// {"detail":"Not Found"}.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Detail  any             `json:"detail"`
}

type errorInner struct {
	Message       string `json:"message"`
	Type          string `json:"type"`
	NPromptTokens int    `json:"n_prompt_tokens"`
	NCtx          int    `json:"n_ctx"`
}

// parseError reads an error body; ok is false when data holds none.
func parseError(status int, data []byte) (*ServerError, bool) {
	e := &ServerError{Status: status}
	var b errorBody
	if json.Unmarshal(data, &b) != nil {
		e.Message = strings.TrimSpace(string(data))
		return e, false
	}
	var inner errorInner
	var text string
	switch {
	case len(b.Error) > 0 && json.Unmarshal(b.Error, &inner) == nil && inner.Message != "":
		e.Message, e.Type = inner.Message, inner.Type
		e.PromptTokens, e.NumCtx = inner.NPromptTokens, inner.NCtx
		// The top level of llama-server's answer carries the counts in some builds.
		var top errorInner
		if json.Unmarshal(data, &top) == nil && e.PromptTokens == 0 {
			e.PromptTokens, e.NumCtx = top.NPromptTokens, top.NCtx
		}
	case len(b.Error) > 0 && json.Unmarshal(b.Error, &text) == nil:
		e.Message = text
	case b.Object == "error" || b.Message != "":
		e.Message, e.Type = b.Message, b.Type
	case b.Detail != nil:
		e.Message = fmt.Sprint(b.Detail)
	default:
		e.Message = strings.TrimSpace(string(data))
		return e, false
	}
	if e.PromptTokens == 0 {
		e.PromptTokens, e.NumCtx = contextNumbers(e.Message)
	}
	return e, true
}

// Context-overflow wordings that carry the numbers: llama-server's
// "request (9000 tokens) exceeds the available context size (8192 tokens)"
// and "input (9000 tokens) is larger than the max context size (8192
// tokens)"; vLLM's "This model's maximum context length is 8192 tokens"
// with the prompt as "(8100 in the messages, …)" (up to 0.10.1), "your
// request has 9000 input tokens" or "your prompt contains at least 7500
// input tokens" (later builds); LM Studio's "Trying to keep the first 9000
// tokens when context the overflows. However, the model is loaded with
// context length of only 8192 tokens, which is not enough."
var (
	llamaOverflow = regexp.MustCompile(`\((\d+) tokens\) (?:exceeds the available context size|is larger than the max context size) \((\d+) tokens\)`)
	vllmWindow    = regexp.MustCompile(`maximum context length is (\d+) tokens`)
	vllmPrompt    = regexp.MustCompile(`\((\d+) in the messages|(\d+) input tokens`)
	lmOverflow    = regexp.MustCompile(`keep the first (\d+) tokens when context the overflows\. However, the model is loaded with context length of only (\d+) tokens`)
)

// contextNumbers reads the prompt's size and the window from an overflow
// message; 0 for what it does not say.
func contextNumbers(msg string) (prompt, window int) {
	for _, re := range []*regexp.Regexp{llamaOverflow, lmOverflow} {
		if m := re.FindStringSubmatch(msg); m != nil {
			prompt, _ = strconv.Atoi(m[1])
			window, _ = strconv.Atoi(m[2])
			return prompt, window
		}
	}
	if m := vllmWindow.FindStringSubmatch(msg); m != nil {
		window, _ = strconv.Atoi(m[1])
		if p := vllmPrompt.FindStringSubmatch(msg); p != nil {
			prompt, _ = strconv.Atoi(p[1] + p[2])
		}
	}
	return prompt, window
}

// statusError turns an HTTP error answer into an error wrapping the
// matching sentinel and keeping the server's words.
func statusError(what, request string, status int, data []byte) error {
	e, _ := parseError(status, data)
	e.Request = request
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if s := sentinel(e); s != nil {
		return fmt.Errorf("%s: %w: %w", what, s, e)
	}
	return fmt.Errorf("%s: %w", what, e)
}

// sentinel maps a server's error to one of package models, or nil. The
// wordings are the servers' own: llama-server (tools/server), vLLM
// (entrypoints/openai), LM Studio.
func sentinel(e *ServerError) error {
	msg := strings.ToLower(e.Message)
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return ErrUnauthorized
	case e.Status == http.StatusServiceUnavailable && strings.Contains(msg, "loading model"):
		// llama-server's middleware_server_state (tools/server/server-http.cpp).
		return ErrLoading
	case noTools(msg):
		return models.ErrNoTools
	case strings.Contains(msg, "error parsing tool call") || strings.Contains(msg, "failed to parse tool call") ||
		strings.Contains(msg, "failed to parse input at pos") ||
		(e.Status == 0 || e.Status >= http.StatusInternalServerError) && models.IsToolParseMessage(e.Message):
		// The server could not read the model's own tool-call text
		// (llama-server's chat parser, in whatever words); the text
		// protocol can. A 4xx about the request's own JSON is not that.
		return models.ErrToolParse
	case e.Status == http.StatusNotFound && strings.Contains(msg, "model"):
		// vLLM: "The model `X` does not exist."; LM Studio: "Model not found".
		return models.ErrModelNotFound
	}
	return nil
}

// parseFailure reads an error of a chat request that offered tools: one
// the server raised while generating (an HTTP 5xx, or an error event in
// the stream) that wraps no other condition and whose words speak of
// parsing, a format, a grammar, JSON or a tool call is its parser failing
// on the model's call (models.IsToolParseFailure), in whatever words the
// server has: llama-server's PEG parser says "The model produced output
// that does not match the expected peg-native format", LM Studio wraps it
// in "Engine protocol predict stream returned an error".
func parseFailure(err error, req models.Request) error {
	var e *ServerError
	if len(req.Tools) == 0 || !errors.As(err, &e) || e.Status != 0 && e.Status < http.StatusInternalServerError ||
		sentinel(e) != nil || e.exceedsContext() || !models.IsToolParseFailure(e.Message, true) {
		return err
	}
	return fmt.Errorf("openai chat %s: %w: %w", req.Model, models.ErrToolParse, e)
}

// noTools recognises a server that will not take the tools field:
// llama-server without --jinja ("tools param requires --jinja flag"), old
// llama-server builds ("Cannot use tools with stream"), vLLM without
// --enable-auto-tool-choice ("\"auto\" tool choice requires
// --enable-auto-tool-choice and --tool-call-parser to be set"), and
// servers that say so plainly.
func noTools(msg string) bool {
	for _, s := range []string{"requires --jinja", "cannot use tools with stream", "--enable-auto-tool-choice",
		"does not support tools", "tool use is not supported", "tools are not supported"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// fail turns a transport error into one that wraps the matching sentinel.
func (c *Client) fail(ctx context.Context, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("%s: %w at %s: %w", what, models.ErrUnreachable, c.Host(), err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w: %w", what, models.ErrIncomplete, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
