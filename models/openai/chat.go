package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ternhq/tern/models"
)

// The wire format of /v1/chat/completions, as far as tern uses it.

type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []wireMessage  `json:"messages"`
	Tools         []wireTool     `json:"tools,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	Stop          []string       `json:"stop,omitempty"`
	// ChatTemplateKwargs reach the model's Jinja template on llama-server
	// and vLLM; enable_thinking switches Qwen3-style reasoning.
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
	ReasoningEffort    string         `json:"reasoning_effort,omitempty"`
	// ResponseFormat holds the reply to a JSON schema (models.Request's
	// Format), which llama-server and vLLM enforce with a grammar.
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name string `json:"name"`
	// Arguments is a JSON string holding the arguments object, as OpenAI
	// specifies.
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string   `json:"type"`
	Function wireSpec `json:"function"`
}

type wireSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chunk is one event of a reply stream.
type chunk struct {
	Choices []struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *usage   `json:"usage"`
	Timings *timings `json:"timings"`
	// An error sent inside the stream.
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
}

// delta is what one event adds to the reply.
type delta struct {
	Content *string `json:"content"`
	// llama-server and older vLLM send reasoning_content; vLLM since 0.10
	// sends reasoning.
	ReasoningContent *string     `json:"reasoning_content"`
	Reasoning        *string     `json:"reasoning"`
	ToolCalls        []callDelta `json:"tool_calls"`
}

type callDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a piece of the JSON text (a JSON string); some
		// servers send the whole arguments object instead.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// timings is llama-server's own accounting, sent with the last chunk.
type timings struct {
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
	CacheN      int     `json:"cache_n"`
}

// Chat streams one reply from /v1/chat/completions. onDelta, when non-nil,
// sees every non-empty piece of content and reasoning as it arrives. Tool
// calls arrive in pieces keyed by index and are assembled into whole calls;
// a call whose id the server left out gets one.
//
// Usage is asked for (stream_options.include_usage); when the server sends
// none, Metrics.PromptTokens stays 0 and token counts are tern's estimate.
// When the server refuses the prompt because it does not fit its window,
// Chat returns no error but an empty reply with DoneReason "length" and
// PromptTokens at least req.Options.NumCtx: the shape of a truncated reply,
// so that the caller's truncation logic compacts and asks again.
//
// When the stream ends without a finish_reason or [DONE], Chat returns what
// arrived with an error wrapping models.ErrIncomplete; when ctx is
// cancelled, with ctx.Err().
func (c *Client) Chat(ctx context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error) {
	what := "openai chat " + req.Model
	reply := models.Reply{Message: models.Message{Role: models.RoleAssistant}}
	body, err := c.chatRequest(req)
	if err != nil {
		return reply, fmt.Errorf("%s: %w", what, err)
	}
	began := time.Now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	resp, err := c.post(ctx, cancel, what, body)
	if err != nil {
		return overflowReply(reply, req, parseFailure(err, req))
	}
	defer resp.Body.Close()
	// The reply's text, and the number of pieces it came in (about one a
	// token), are capped: a server that never stops cannot hang tern.
	maxBytes := cmp.Or(c.MaxReplyBytes, DefaultMaxReplyBytes)
	maxPieces := 0
	if req.Options.NumPredict > 0 {
		maxPieces = 2*req.Options.NumPredict + 256
	}
	size, pieces := 0, 0

	s := newStream(resp.Body)
	idle := c.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	watchdog := time.AfterFunc(idle, func() {
		cancel(fmt.Errorf("%w: the server sent nothing for %s", models.ErrIncomplete, idle))
	})
	defer watchdog.Stop()

	var content, thinking strings.Builder
	var inline inlineThink
	think := func(text string) {
		thinking.WriteString(text)
		if onDelta != nil && text != "" {
			onDelta(models.Delta{Thinking: text})
		}
	}
	say := func(text string) {
		content.WriteString(text)
		if onDelta != nil && text != "" {
			onDelta(models.Delta{Content: text})
		}
	}
	calls := &callSet{}
	finished := false
	for {
		data, err := s.next()
		watchdog.Reset(idle)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			reply.Message.Content, reply.Message.Thinking = content.String(), thinking.String()
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return reply, fmt.Errorf("%s: %w", what, cause)
			}
			return reply, c.fail(ctx, what, err)
		}
		if data == nil {
			finished = true // [DONE]
			break
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			reply.Message.Content, reply.Message.Thinking = content.String(), thinking.String()
			return reply, fmt.Errorf("%s: a stream event is not JSON: %.120q", what, data)
		}
		if len(ch.Error) > 0 || ch.Object == "error" {
			reply.Message.Content, reply.Message.Thinking = content.String(), thinking.String()
			e, _ := parseError(0, data)
			if s := sentinel(e); s != nil {
				return overflowReply(reply, req, fmt.Errorf("%s: %w: %w", what, s, e))
			}
			return overflowReply(reply, req, parseFailure(fmt.Errorf("%s: %w", what, e), req))
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue // tern asks for one choice
			}
			d := choice.Delta
			size += deltaSize(d)
			pieces++
			if size > maxBytes || maxPieces > 0 && pieces > maxPieces {
				reply.Message.Content, reply.Message.Thinking = content.String(), thinking.String()
				if size > maxBytes {
					return reply, fmt.Errorf("%s: %w: the reply passed %d bytes (stream.max_reply_bytes in the config); it was stopped there", what, models.ErrReplyTooLong, maxBytes)
				}
				return reply, fmt.Errorf("%s: %w: the server streamed %d pieces, far past max_tokens (%d); it was stopped there", what, models.ErrReplyTooLong, pieces, req.Options.NumPredict)
			}
			for _, r := range []*string{d.ReasoningContent, d.Reasoning} {
				if r != nil {
					think(*r)
				}
			}
			if d.Content != nil && *d.Content != "" {
				thought, said := inline.split(*d.Content)
				think(thought)
				say(said)
			}
			for _, cd := range d.ToolCalls {
				calls.add(cd)
			}
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				finished = true
				reply.DoneReason = *choice.FinishReason
			}
		}
		if ch.Usage != nil {
			reply.Metrics.PromptTokens = ch.Usage.PromptTokens
			reply.Metrics.EvalTokens = ch.Usage.CompletionTokens
			if d := ch.Usage.PromptTokensDetails; d != nil {
				reply.Metrics.CachedTokens, reply.Metrics.CacheReported = d.CachedTokens, true
			}
		}
		if t := ch.Timings; t != nil {
			// llama-server's own count of the prompt it reused.
			reply.Metrics.CachedTokens, reply.Metrics.CacheReported = t.CacheN, true
			reply.Metrics.PromptDuration = time.Duration(t.PromptMS * float64(time.Millisecond))
			reply.Metrics.EvalDuration = time.Duration(t.PredictedMS * float64(time.Millisecond))
			if reply.Metrics.EvalTokens == 0 {
				reply.Metrics.EvalTokens = t.PredictedN
			}
		}
	}
	thought, said := inline.flush()
	think(thought)
	say(said)
	reply.Message.Content, reply.Message.Thinking = content.String(), thinking.String()
	if thought, answer, ok := closedOnly(reply.Message.Content); ok && reply.Message.Thinking == "" {
		// Shown as content while it streamed; kept as what it was.
		reply.Message.Thinking, reply.Message.Content = thought, answer
	}
	reply.Message.ToolCalls = calls.whole(c.newCallID)
	reply.Metrics.TotalDuration = time.Since(began)
	switch reply.DoneReason {
	case "tool_calls", "function_call":
		reply.DoneReason = "stop" // Ollama's word, which the agent knows
	case "":
		if finished {
			reply.DoneReason = "stop"
		}
	}
	if !finished {
		if ctx.Err() != nil {
			return reply, fmt.Errorf("%s: %w", what, context.Cause(ctx))
		}
		return reply, fmt.Errorf("%s: %w: no finish_reason after %d bytes of content", what, models.ErrIncomplete, content.Len())
	}
	return reply, nil
}

// post sends a chat request, which streams its answer. A server that
// sends no response headers within the header timeout is cut off (by
// cancel, ctx's) with an error wrapping models.ErrStalled.
func (c *Client) post(ctx context.Context, cancel context.CancelCauseFunc, what string, body any) (*http.Response, error) {
	limit := cmp.Or(c.HeaderTimeout, DefaultIdleTimeout)
	headers := time.AfterFunc(limit, func() { cancel(errNoHeaders) })
	resp, err := c.do(ctx, what, http.MethodPost, "/v1/chat/completions", body)
	headers.Stop()
	if err != nil && context.Cause(ctx) == errNoHeaders {
		return nil, fmt.Errorf("%s: %w: the server at %s sent no response headers within %s (stream.header_timeout in the config)",
			what, models.ErrStalled, c.Host(), limit)
	}
	return resp, err
}

// overflowReply turns a server's refusal of an over-long prompt into the
// shape of a truncated reply (see Chat); other errors pass through.
func overflowReply(reply models.Reply, req models.Request, err error) (models.Reply, error) {
	var se *ServerError
	if !errors.As(err, &se) || !se.exceedsContext() {
		return reply, err
	}
	// The prompt was at least the window, whether or not the server said
	// by how much (older llama-server builds and some of vLLM's words do
	// not): that is what the caller learns from.
	prompt := max(se.PromptTokens, req.Options.NumCtx)
	if prompt <= 0 {
		return reply, err
	}
	reply.Message.Content, reply.Message.Thinking, reply.Message.ToolCalls = "", "", nil
	reply.DoneReason = "length"
	reply.Metrics.PromptTokens = prompt
	return reply, nil
}

func (c *Client) newCallID() string {
	return fmt.Sprintf("call_tern_%d", c.calls.Add(1))
}

// chatRequest builds the wire request. Options.NumCtx is not sent: an
// OpenAI-compatible server's window is fixed when it starts, and tern keeps
// every prompt inside it instead.
func (c *Client) chatRequest(req models.Request) (*chatRequest, error) {
	out := &chatRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		MaxTokens:     req.Options.NumPredict,
		Temperature:   req.Options.Temperature,
		Stop:          req.Options.Stop,
	}
	if len(req.Format) > 0 {
		out.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: "reply", Schema: req.Format}}
	}
	switch t := req.Options.Think; t {
	case "", "false":
		out.ChatTemplateKwargs = map[string]any{"enable_thinking": false}
	case "true":
		out.ChatTemplateKwargs = map[string]any{"enable_thinking": true}
	default:
		out.ChatTemplateKwargs = map[string]any{"enable_thinking": true}
		out.ReasoningEffort = t
	}
	msgs, err := wireMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	out.Messages = msgs
	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(params) {
			return nil, fmt.Errorf("tool %s parameters are not JSON", t.Name)
		}
		out.Tools = append(out.Tools, wireTool{Type: "function", Function: wireSpec{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out, nil
}

// wireMessages converts a conversation. OpenAI-compatible servers pair a
// tool result with its call by id, so calls without one (recovered from a
// model's text) get an id derived from their place, which is the same
// every time the conversation is sent: the prompt prefix stays
// byte-identical and the server's prompt cache keeps working.
func wireMessages(msgs []models.Message) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	var pending []string // ids of the last assistant message's calls not yet answered
	for i, m := range msgs {
		wm := wireMessage{Role: string(m.Role), Content: m.Content}
		switch m.Role {
		case models.RoleAssistant:
			pending = pending[:0]
			for j, tc := range m.ToolCalls {
				id := tc.ID
				if id == "" {
					id = fmt.Sprintf("call_%d_%d", i, j)
				}
				id = wireID(id)
				args, err := argumentsText(tc.Arguments)
				if err != nil {
					return nil, fmt.Errorf("message %d: tool call %s: %w", i, tc.Name, err)
				}
				wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: id, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: args}})
				pending = append(pending, id)
			}
		case models.RoleTool:
			wm.ToolCallID = m.ToolCallID
			if wm.ToolCallID != "" {
				wm.ToolCallID = wireID(wm.ToolCallID)
			}
			if k := slices.Index(pending, wm.ToolCallID); k >= 0 {
				pending = slices.Delete(pending, k, k+1)
			} else if m.ToolCallID == "" && len(pending) > 0 {
				wm.ToolCallID, pending = pending[0], pending[1:]
			}
		}
		if n := len(out); n > 0 && sameTurn(out[n-1], wm) {
			// Two messages of one role in a row (the retrieved code and
			// the question, the results of several calls in the text
			// tool protocol, a correction after one) go as one: the chat
			// templates of Gemma 3, Mistral and others raise "Conversation
			// roles must alternate", which the server answers with a 500.
			out[n-1].Content += "\n\n" + wm.Content
			continue
		}
		out = append(out, wm)
	}
	return out, nil
}

// wireID is the id a tool call goes to the server with: id itself when
// it is 9 letters and digits, else 9 letters and digits derived from it.
// The chat templates of Mistral's models (7B v0.3, Nemo, Ministral,
// Small 3.2) refuse any other id, and the server answers 500 to every
// request that carries one; the ids tern numbers its calls with
// ("call_12") are not of that form. The same id always maps to the same
// one, so a call and its result stay paired and the prompt's prefix stays
// the same from one request to the next.
func wireID(id string) string {
	if len(id) == 9 && strings.IndexFunc(id, func(r rune) bool { return !isAlnum(r) }) < 0 {
		return id
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [9]byte
	n := h.Sum64()
	for i := range b {
		b[i] = digits[n%36]
		n /= 36
	}
	return string(b[:])
}

func isAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// sameTurn reports whether b continues a's turn: both user, or both
// assistant without tool calls.
func sameTurn(a, b wireMessage) bool {
	switch {
	case a.Role != b.Role:
		return false
	case a.Role == string(models.RoleUser):
		return true
	case a.Role == string(models.RoleAssistant):
		return len(a.ToolCalls) == 0 && len(b.ToolCalls) == 0
	}
	return false
}

// argumentsText is the arguments as the JSON string OpenAI expects.
func argumentsText(args json.RawMessage) (string, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return "{}", nil
	}
	if args[0] == '"' {
		var s string
		if err := json.Unmarshal(args, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	return string(args), nil
}
