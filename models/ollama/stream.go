package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
)

// Limits bound one reply stream, so that a server that stalls or never
// stops cannot hang tern. A zero field takes its default.
type Limits struct {
	// HeaderTimeout is how long the server may take to start answering:
	// loading the model and reading the prompt happen before its first byte.
	HeaderTimeout time.Duration
	// IdleTimeout is the longest silence between two lines of a reply.
	IdleTimeout time.Duration
	// MaxReplyBytes caps the text (content and thinking) of one reply.
	MaxReplyBytes int
	// ContactTimeout is how long the server may take to answer a question
	// about itself (its version, its models, a model's details, what is
	// loaded). A working server answers those at once, so a server that
	// takes the connection and never answers is found out in seconds.
	ContactTimeout time.Duration
}

// Default limits.
const (
	DefaultHeaderTimeout = 5 * time.Minute
	DefaultIdleTimeout   = 3 * time.Minute
	DefaultMaxReplyBytes = 1 << 20
	// DefaultContactTimeout leaves room for a busy laptop reading a large
	// model's metadata from a cold disk.
	DefaultContactTimeout = 10 * time.Second
)

func (l Limits) orDefaults() Limits {
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = DefaultHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxReplyBytes <= 0 {
		l.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if l.ContactTimeout <= 0 {
		l.ContactTimeout = DefaultContactTimeout
	}
	return l
}

// Option configures a Client.
type Option func(*Client)

// WithLimits sets the limits of every reply stream.
func WithLimits(l Limits) Option { return func(c *Client) { c.limits = l.orDefaults() } }

// The causes a guarded stream is cut for.
var (
	errNoHeaders = errors.New("no response headers")
	errIdle      = errors.New("stream idle")
)

// chatLine is one decoded line of a reply stream. Args holds, by index
// into Message.ToolCalls, the raw arguments of calls whose arguments were
// not a JSON object (a string, a number, a list): the api package cannot
// hold those, and the model must hear about them rather than lose the turn.
type chatLine struct {
	api.ChatResponse
	Args map[int]json.RawMessage
}

// streamChat posts req to /api/chat and calls fn with each line of the
// reply, under the client's limits: no headers within HeaderTimeout, or
// no line within IdleTimeout, ends it with an error wrapping
// models.ErrStalled. It speaks the wire format as the api package does
// (errors in the status or in an {"error":…} line), but keeps tool calls
// whose arguments are not an object.
func (c *Client) streamChat(ctx context.Context, req *api.ChatRequest, fn func(chatLine) error) error {
	lim := c.limits.orDefaults()
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/x-ndjson")

	headers := time.AfterFunc(lim.HeaderTimeout, func() { cancel(errNoHeaders) })
	resp, err := c.http.Do(hreq)
	headers.Stop()
	if err != nil {
		return c.stalled(ctx, lim, err)
	}
	defer resp.Body.Close()
	idle := time.AfterFunc(lim.IdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()
	err = readStream(resp.Body, resp.StatusCode, resp.Status, lim.MaxReplyBytes+64<<10, func(line []byte) error {
		idle.Reset(lim.IdleTimeout)
		cl, err := decodeChatLine(line)
		if err != nil {
			return err
		}
		return fn(cl)
	})
	return c.stalled(ctx, lim, err)
}

// stalled names the limit that cut a stream, if one did.
func (c *Client) stalled(ctx context.Context, lim Limits, err error) error {
	switch context.Cause(ctx) {
	case errNoHeaders:
		return fmt.Errorf("%w: Ollama at %s sent no response headers within %s (a model that is slow to load may need a longer stream.header_timeout in the config)",
			models.ErrStalled, c.Host(), lim.HeaderTimeout)
	case errIdle:
		return fmt.Errorf("%w: the reply stream sent nothing for %s (stream.idle_timeout in the config)", models.ErrStalled, lim.IdleTimeout)
	}
	return err
}

// readStream calls each with every non-empty line of an NDJSON body, as
// the api package reads one: a line that is not JSON, or any line of an
// error status, is the error; an {"error":…} line is an error. A read
// error ends the stream quietly (the caller sees no final line); a line
// longer than maxLine is an error wrapping models.ErrReplyTooLong.
func readStream(body io.Reader, status int, statusText string, maxLine int, each func([]byte) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e struct {
			Error string `json:"error,omitempty"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			if status >= http.StatusBadRequest {
				return api.StatusError{StatusCode: status, Status: statusText, ErrorMessage: string(line)}
			}
			return errors.New(string(line))
		}
		if status >= http.StatusBadRequest {
			return api.StatusError{StatusCode: status, Status: statusText, ErrorMessage: e.Error}
		}
		if e.Error != "" {
			return errors.New(e.Error)
		}
		if msg, ok := oddError(line); ok {
			return errors.New(msg)
		}
		if err := each(line); err != nil {
			return err
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Errorf("%w: one line of the reply stream is over %d bytes", models.ErrReplyTooLong, maxLine)
	}
	return nil
}

// oddError reads an error line written under the wrong key: Ollama's
// harmony parser sent {"error parsing tool call": "invalid character …"}
// (ollama/ollama#11781), a line that decodes as an empty reply. An object
// whose one key starts with "error" and holds a string is taken as the
// error "KEY: VALUE".
func oddError(line []byte) (string, bool) {
	if !bytes.HasPrefix(line, []byte(`{"error`)) {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || len(m) != 1 {
		return "", false
	}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return k + ": " + s, true
	}
	return "", false
}

// decodeChatLine decodes one line of a chat stream. Tool-call arguments
// that are not a JSON object are kept raw in Args and sent on as {}.
func decodeChatLine(line []byte) (chatLine, error) {
	var cl chatLine
	err := json.Unmarshal(line, &cl.ChatResponse)
	if err == nil {
		return cl, nil
	}
	fixed, args, ok := objectArgs(line)
	if !ok {
		return cl, err
	}
	cl = chatLine{}
	if json.Unmarshal(fixed, &cl.ChatResponse) != nil {
		return cl, err
	}
	cl.Args = args
	return cl, nil
}

// objectArgs rewrites a line whose tool calls carry non-object arguments:
// each becomes {}, and its raw value is returned by call index.
func objectArgs(line []byte) ([]byte, map[int]json.RawMessage, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return nil, nil, false
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(top["message"], &msg) != nil {
		return nil, nil, false
	}
	var calls []map[string]json.RawMessage
	if json.Unmarshal(msg["tool_calls"], &calls) != nil {
		return nil, nil, false
	}
	args := map[int]json.RawMessage{}
	for i, call := range calls {
		var fn map[string]json.RawMessage
		if json.Unmarshal(call["function"], &fn) != nil {
			continue
		}
		a := bytes.TrimSpace(fn["arguments"])
		if len(a) == 0 || a[0] == '{' {
			continue
		}
		args[i] = append(json.RawMessage(nil), a...)
		fn["arguments"] = json.RawMessage("{}")
		call["function"], _ = json.Marshal(fn)
	}
	if len(args) == 0 {
		return nil, nil, false
	}
	var err error
	if msg["tool_calls"], err = json.Marshal(calls); err != nil {
		return nil, nil, false
	}
	if top["message"], err = json.Marshal(msg); err != nil {
		return nil, nil, false
	}
	fixed, err := json.Marshal(top)
	return fixed, args, err == nil
}

// replyCap counts what one reply streams and stops it past its limits:
// MaxReplyBytes of text, or far more pieces than num_predict allows (a
// server streams about one piece a token).
type replyCap struct {
	maxBytes, maxPieces int
	bytes, pieces       int
	numPredict          int
}

func (c *Client) replyCap(numPredict int) *replyCap {
	r := &replyCap{maxBytes: c.limits.orDefaults().MaxReplyBytes, numPredict: numPredict}
	if numPredict > 0 {
		r.maxPieces = 2*numPredict + 256
	}
	return r
}

func (r *replyCap) add(n int) error {
	r.bytes += n
	r.pieces++
	switch {
	case r.bytes > r.maxBytes:
		return fmt.Errorf("%w: the reply passed %d bytes (stream.max_reply_bytes in the config); it was stopped there", models.ErrReplyTooLong, r.maxBytes)
	case r.maxPieces > 0 && r.pieces > r.maxPieces:
		return fmt.Errorf("%w: the server streamed %d pieces, far past num_predict (%d tokens); it was stopped there", models.ErrReplyTooLong, r.pieces, r.numPredict)
	}
	return nil
}

// historyArgs converts a past call's arguments for the wire. A model may
// have sent them as a string, a number or a list (the call was answered
// with a correction); the wire takes only an object, so a string holding
// one is unwrapped and anything else is sent as {}.
func historyArgs(raw json.RawMessage) (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		var s string
		if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &args) != nil {
			return api.NewToolCallFunctionArguments(), nil
		}
		return args, nil
	}
	err := json.Unmarshal(raw, &args)
	return args, err
}
