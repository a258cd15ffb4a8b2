package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
)

// DefaultKeepAlive keeps the model loaded between turns when the request
// does not say otherwise. Ollama's own default (5m) is shorter than a user
// reading a diff, and a reload costs seconds.
const DefaultKeepAlive = 30 * time.Minute

// Chat streams one reply from /api/chat. onDelta, when non-nil, sees every
// non-empty piece of content and thinking as it arrives. Tool calls, the
// done reason and the server's metrics are in the returned Reply.
//
// When the stream ends without the server's final "done" line after a long
// run of one repeated token, the server stopped a model in a repetition
// loop (repeat.go): Chat returns what arrived, with done reason
// models.DoneRepetition and no error. When it ends so otherwise (a crash, a
// dropped connection) Chat returns what arrived with an error wrapping
// models.ErrIncomplete. When ctx is cancelled it returns what arrived with
// an error wrapping ctx.Err().
func (c *Client) Chat(ctx context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error) {
	reply := models.Reply{Message: models.Message{Role: models.RoleAssistant}}
	areq, err := chatRequest(req)
	if err != nil {
		return reply, fmt.Errorf("ollama chat %s: %w", req.Model, err)
	}

	var content, thinking strings.Builder
	done := false
	var convErr error
	var repeats repeatWatch
	limit := c.replyCap(req.Options.NumPredict)
	err = c.streamChat(ctx, areq, func(line chatLine) error {
		r := line.ChatResponse
		repeats.see(r)
		if err := limit.add(len(r.Message.Content) + len(r.Message.Thinking)); err != nil {
			return err
		}
		if s := r.Message.Thinking; s != "" {
			thinking.WriteString(s)
			if onDelta != nil {
				onDelta(models.Delta{Thinking: s})
			}
		}
		if s := r.Message.Content; s != "" {
			content.WriteString(s)
			if onDelta != nil {
				onDelta(models.Delta{Content: s})
			}
		}
		for i, tc := range r.Message.ToolCalls {
			call, err := fromAPIToolCall(tc)
			if raw, ok := line.Args[i]; ok {
				// Not an object: the model hears about it from the tool.
				call.Arguments, err = raw, nil
			}
			if err != nil && convErr == nil {
				convErr = err
			}
			reply.Message.ToolCalls = append(reply.Message.ToolCalls, call)
		}
		if r.Done {
			done = true
			reply.DoneReason = r.DoneReason
			reply.Metrics = models.Metrics{
				PromptTokens:   r.PromptEvalCount,
				EvalTokens:     r.EvalCount,
				TotalDuration:  r.TotalDuration,
				LoadDuration:   r.LoadDuration,
				PromptDuration: r.PromptEvalDuration,
				EvalDuration:   r.EvalDuration,
			}
		}
		return nil
	})
	reply.Message.Content = content.String()
	reply.Message.Thinking = thinking.String()
	switch {
	case errors.Is(err, models.ErrStalled) || errors.Is(err, models.ErrReplyTooLong):
		return reply, fmt.Errorf("ollama chat %s: %w", req.Model, err)
	case err != nil:
		err = parseFailure(err, c.fail(ctx, "ollama chat", req.Model, err), req)
		if errors.Is(err, models.ErrToolParse) {
			c.freeRunner(ctx, req.Model)
		}
		return reply, err
	case ctx.Err() != nil:
		// The api package ends a stream quietly when the body read fails,
		// which is what cancellation looks like mid-stream.
		return reply, fmt.Errorf("ollama chat %s: %w", req.Model, ctx.Err())
	case !done && repeats.looped():
		reply.DoneReason = models.DoneRepetition
		return reply, nil
	case !done:
		return reply, fmt.Errorf("ollama chat %s: %w: no final message after %d bytes of content",
			req.Model, models.ErrIncomplete, content.Len())
	case convErr != nil:
		return reply, fmt.Errorf("ollama chat %s: %w", req.Model, convErr)
	}
	return reply, nil
}

// chatRequest builds the wire request. num_ctx and think are always sent
// explicitly: Ollama serves a small default window when num_ctx is absent,
// and turns thinking on when think is absent.
func chatRequest(req models.Request) (*api.ChatRequest, error) {
	opts := map[string]any{}
	if req.Options.NumCtx > 0 {
		opts["num_ctx"] = req.Options.NumCtx
	}
	if req.Options.NumPredict > 0 {
		opts["num_predict"] = req.Options.NumPredict
	}
	if req.Options.Temperature != nil {
		opts["temperature"] = *req.Options.Temperature
	}
	if len(req.Options.Stop) > 0 {
		opts["stop"] = req.Options.Stop
	}
	keepAlive := req.Options.KeepAlive
	if keepAlive == 0 {
		keepAlive = DefaultKeepAlive
	}

	msgs := make([]api.Message, len(req.Messages))
	for i, m := range req.Messages {
		am, err := toAPIMessage(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		msgs[i] = am
	}
	tools := make(api.Tools, 0, len(req.Tools))
	for _, t := range req.Tools {
		at, err := toAPITool(t)
		if err != nil {
			return nil, err
		}
		tools = append(tools, at)
	}
	stream := true
	return &api.ChatRequest{
		Model:     req.Model,
		Messages:  msgs,
		Stream:    &stream,
		KeepAlive: &api.Duration{Duration: keepAlive},
		Tools:     tools,
		Format:    req.Format,
		Options:   opts,
		Think:     thinkValue(req.Options.Think),
	}, nil
}

// thinkValue is never nil. Ollama v0.17.4 accepts think:false for a model
// without the thinking capability (server/routes.go rejects only a true
// value), so false is safe to send to every model.
func thinkValue(s string) *api.ThinkValue {
	switch s {
	case "", "false":
		return &api.ThinkValue{Value: false}
	case "true":
		return &api.ThinkValue{Value: true}
	}
	return &api.ThinkValue{Value: s}
}

func toAPIMessage(m models.Message) (api.Message, error) {
	am := api.Message{
		Role:       string(m.Role),
		Content:    m.Content,
		Thinking:   m.Thinking,
		ToolName:   m.ToolName,
		ToolCallID: m.ToolCallID,
	}
	for i, tc := range m.ToolCalls {
		args, err := historyArgs(tc.Arguments)
		if err != nil {
			return api.Message{}, fmt.Errorf("tool call %s arguments: %w", tc.Name, err)
		}
		am.ToolCalls = append(am.ToolCalls, api.ToolCall{
			ID:       tc.ID,
			Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args},
		})
	}
	return am, nil
}

// toAPITool converts a tool specification. api.ToolFunctionParameters keeps
// the order of the top-level properties; JSON Schema keywords it has no
// field for (minimum, default, additionalProperties, …) are not sent.
func toAPITool(t models.ToolSpec) (api.Tool, error) {
	params := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &params); err != nil {
			return api.Tool{}, fmt.Errorf("tool %s parameters: %w", t.Name, err)
		}
		if params.Properties == nil {
			params.Properties = api.NewToolPropertiesMap()
		}
	}
	return api.Tool{
		Type: "function",
		Function: api.ToolFunction{
			Name:        t.Name,
			Description: t.Description,
			Parameters:  params,
		},
	}, nil
}

// fromAPIToolCall keeps the arguments' key order as the server sent it.
func fromAPIToolCall(tc api.ToolCall) (models.ToolCall, error) {
	args, err := tc.Function.Arguments.MarshalJSON()
	call := models.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args}
	if err != nil {
		call.Arguments = json.RawMessage("{}")
		return call, fmt.Errorf("tool call %s arguments: %w", tc.Function.Name, err)
	}
	return call, nil
}

// freeRunner unloads model after its tool call failed to parse. Ollama
// v0.17.4 can leave the model's runner holding its only slot after such a
// failure (the reply that failed is never released), and every later
// request to the model then waits for a slot that never frees: make
// test-real saw it after one to three parse failures in a row. Unloading
// frees the slot; the next request loads the model again, which costs its
// load time once.
func (c *Client) freeRunner(ctx context.Context, model string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unloadTimeout)
	defer cancel()
	// A chat request with no messages and keep_alive 0 is Ollama's unload.
	unload := &api.ChatRequest{Model: model, KeepAlive: &api.Duration{}}
	_ = c.api.Chat(ctx, unload, func(api.ChatResponse) error { return nil })
}

// unloadTimeout bounds freeRunner: an unload answers at once.
const unloadTimeout = 10 * time.Second
