package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Request is a decoded /v1/chat/completions request.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens          int            `json:"max_tokens"`
	Temperature        *float64       `json:"temperature"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
	ReasoningEffort    string         `json:"reasoning_effort"`
	// ResponseFormat is the JSON schema the reply must match, if any.
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	// PromptTokens is what the server counted for the prompt.
	PromptTokens int `json:"-"`
}

// Message is one message of a request.
type Message struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// Reply is one scripted answer.
type Reply struct {
	Content  string
	Thinking string // streamed as reasoning_content (vLLM: reasoning)
	// ToolCalls are streamed as tool_calls deltas, the arguments in
	// pieces. Without tools in the request they are written into the
	// content as <tool_call>{…}</tool_call> text.
	ToolCalls []Call
	// Chunks, when set, is the content in explicit pieces.
	Chunks     []string
	ChunkDelay time.Duration

	// FinishReason overrides the finish_reason ("length", …).
	FinishReason string
	// Status, when non-zero, answers with that HTTP status and Error.
	Status int
	Error  string
	// StreamError ends the stream with an error event after the chunks.
	StreamError string
	// DropAfter > 0 closes the connection after that many chunks, with no
	// finish chunk and no [DONE].
	DropAfter int
	// Quirks of servers and models.
	ArgsAsObject bool // arguments sent whole, as a JSON object
	NoIDs        bool // tool calls without ids
	NoIndex      bool // tool-call deltas without index (each call in one delta)
	// PromptTokens overrides the prompt_tokens reported.
	PromptTokens int
}

// Call is a scripted tool call; Args is the raw arguments text the model
// wrote (usually a JSON object).
type Call struct {
	Name string
	Args string
}

// render is a ChatML rendering of the prompt, for counting.
func render(req Request) string {
	var b strings.Builder
	for _, t := range req.Tools {
		data, _ := json.Marshal(t)
		b.Write(data)
		b.WriteByte('\n')
	}
	for _, m := range req.Messages {
		b.WriteString("<|im_start|>" + m.Role + "\n" + m.Content)
		for _, tc := range m.ToolCalls {
			b.WriteString("\n<tool_call>\n{\"name\": \"" + tc.Function.Name + "\", \"arguments\": " + tc.Function.Arguments + "}\n</tool_call>")
		}
		b.WriteString("<|im_end|>\n")
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.writeError(w, http.StatusBadRequest, "Invalid request body: "+err.Error(), "invalid_request_error")
		return
	}
	c := s.cfg
	req.PromptTokens = c.count(render(req))
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.seq++
	seq := s.seq
	s.mu.Unlock()

	if len(req.Messages) == 0 {
		s.writeError(w, http.StatusBadRequest, "'messages' is required", "invalid_request_error")
		return
	}
	if c.nineIDs && !nineCharIDs(req) {
		s.writeError(w, http.StatusInternalServerError, "Tool call IDs should be alphanumeric strings with length 9! at row 91, column 40:\n                {%- if not tool_call.id is defined or tool_call.id is not string or tool_call.id|length != 9 %}", "server_error")
		return
	}
	if c.alternate {
		for i := 1; i < len(req.Messages); i++ {
			if r := req.Messages[i].Role; (r == "user" || r == "assistant") && r == req.Messages[i-1].Role {
				s.writeError(w, http.StatusInternalServerError, "\n------------\nWhile executing CallExpression at line 19, column 27 in source:\n...% 2 == 0) -%}\n        {{ raise_exception(\"Conversation roles must alternate user...\n                                           ^\nError: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...", "server_error")
				return
			}
		}
	}
	switch {
	case c.flavor == VLLM && req.Model != c.model:
		s.writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model), "NotFoundError")
		return
	case c.flavor == LMStudio && req.Model != c.model:
		s.writeError(w, http.StatusNotFound, fmt.Sprintf("Model %q not found. Please load it first.", req.Model), "")
		return
	}
	if len(req.Tools) > 0 && c.noTools {
		switch c.flavor {
		case VLLM:
			s.writeError(w, http.StatusBadRequest, `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`, "BadRequestError")
		default:
			// Thrown while parsing the request; the handler answers 500.
			s.writeError(w, http.StatusInternalServerError, "tools param requires --jinja flag", "server_error")
		}
		return
	}
	if msg, ok := s.overflow(req); !ok {
		switch c.flavor {
		case LlamaServer:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": msg,
				"type": "exceed_context_size_error", "n_prompt_tokens": req.PromptTokens, "n_ctx": c.window}})
		case VLLM:
			s.writeError(w, http.StatusBadRequest, msg, "BadRequestError")
		default:
			s.writeError(w, http.StatusBadRequest, msg, "")
		}
		return
	}

	reply, ok := s.next(req)
	if !ok {
		if s.tb != nil {
			s.tb.Errorf("openaitest: chat request %d but the script is empty and no responder is set", seq)
		}
		s.writeError(w, http.StatusInternalServerError, "openaitest: no scripted reply", "server_error")
		return
	}
	if reply.Status != 0 {
		s.writeError(w, reply.Status, reply.Error, "server_error")
		return
	}
	if req.MaxTokens == 1 {
		reply = Reply{Content: "OK"} // a probe: one token
	}
	s.stream(w, r, req, reply, seq)
}

// nineCharIDs reports whether every tool-call id of req is 9 letters and
// digits.
func nineCharIDs(req Request) bool {
	ok := func(id string) bool {
		if len(id) != 9 {
			return false
		}
		for _, r := range id {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return false
			}
		}
		return true
	}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			if !ok(tc.ID) {
				return false
			}
		}
		if m.Role == "tool" && !ok(m.ToolCallID) {
			return false
		}
	}
	return true
}

// overflow checks the prompt against the window as the flavour does.
func (s *Server) overflow(req Request) (string, bool) {
	c, n := s.cfg, req.PromptTokens
	switch c.flavor {
	case LlamaServer:
		// server-context.cpp: a task of n_ctx tokens or more is refused.
		if n >= c.window {
			return fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", n, c.window), false
		}
	case VLLM:
		// The prompt and max_tokens together must fit max_model_len, in
		// the words of vLLM 0.10.2 and later (before, one message said
		// "However, you requested N tokens (P in the messages, C in the
		// completion)"); see
		// https://github.com/vllm-project/vllm/blob/9cfa5486/vllm/entrypoints/openai/serving_engine.py#L642-L673
		// and the renderer's _create_tokens_prompt.
		switch {
		case n > c.window:
			return fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.",
				c.window, n), false
		case n+req.MaxTokens > c.window:
			return fmt.Sprintf("'max_tokens' or 'max_completion_tokens' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).",
				req.MaxTokens, c.window, n, req.MaxTokens, c.window, n), false
		}
	case LMStudio:
		if n > c.window {
			return fmt.Sprintf("Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input", n, c.window), false
		}
	}
	return "", true
}

func (s *Server) next(req Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.MaxTokens == 1 {
		return Reply{Content: "OK"}, true // probes do not use up the script
	}
	if len(s.script) > 0 {
		r := s.script[0]
		s.script = s.script[1:]
		return r, true
	}
	if s.respond != nil {
		return s.respond(req), true
	}
	return Reply{}, false
}

// stream writes reply as the flavour's server-sent events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, reply Reply, seq int) {
	c := s.cfg
	id := fmt.Sprintf("chatcmpl-%08d", seq)
	created := 1735142223 + seq
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(v any) bool {
		data, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		ch := map[string]any{"index": 0, "delta": delta, "finish_reason": finish}
		if c.flavor == VLLM {
			ch["logprobs"] = nil
		}
		out := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": []any{ch}}
		if c.flavor == LlamaServer {
			out["model"] = c.model
			out["system_fingerprint"] = "b6710-74b8fc17"
		}
		return out
	}

	var events []map[string]any
	// The first chunk names the role.
	if c.flavor == VLLM {
		events = append(events, chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	} else {
		events = append(events, chunk(map[string]any{"role": "assistant", "content": nil}, nil))
	}
	thinkOn := true
	if v, ok := req.ChatTemplateKwargs["enable_thinking"].(bool); ok {
		thinkOn = v
	}
	if reply.Thinking != "" && thinkOn {
		field := "reasoning_content"
		if c.flavor == VLLM {
			field = "reasoning" // vLLM since 0.10
		}
		for _, p := range pieces(reply.Thinking) {
			events = append(events, chunk(map[string]any{field: p}, nil))
		}
	}
	if len(req.Tools) == 0 && len(reply.ToolCalls) > 0 {
		// Without tools in the request, a model's calls stay text, as a
		// chat template that does not parse them leaves them.
		for _, call := range reply.ToolCalls {
			reply.Content += "<tool_call>\n{\"name\": \"" + call.Name + "\", \"arguments\": " + call.Args + "}\n</tool_call>"
		}
		reply.ToolCalls = nil
	}
	content := reply.Chunks
	if content == nil && reply.Content != "" {
		content = pieces(reply.Content)
	}
	for _, p := range content {
		events = append(events, chunk(map[string]any{"content": p}, nil))
	}
	generated := len(reply.Thinking)/4 + len(reply.Content)/4 + 1
	for i, call := range reply.ToolCalls {
		events = append(events, s.callEvents(chunk, reply, i, call, seq)...)
		generated += len(call.Args)/4 + 4
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
		if len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	finishAt := len(events)
	if c.flavor == VLLM {
		events = append(events, chunk(map[string]any{"content": ""}, finish))
		events[finishAt]["choices"].([]any)[0].(map[string]any)["stop_reason"] = nil
	} else {
		events = append(events, chunk(map[string]any{}, finish))
	}
	promptTokens := req.PromptTokens
	if reply.PromptTokens > 0 {
		promptTokens = reply.PromptTokens
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage && !c.noUsage {
		u := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": []any{},
			"usage": map[string]any{"completion_tokens": generated, "prompt_tokens": promptTokens, "total_tokens": promptTokens + generated}}
		if c.flavor == LlamaServer {
			u["usage"].(map[string]any)["prompt_tokens_details"] = map[string]any{"cached_tokens": 0}
			u["model"], u["system_fingerprint"] = c.model, "b6710-74b8fc17"
		}
		events = append(events, u)
	}
	if c.flavor == LlamaServer {
		events[len(events)-1]["timings"] = map[string]any{"cache_n": 0, "prompt_n": promptTokens, "prompt_ms": 120.5,
			"predicted_n": generated, "predicted_ms": 800.25}
	}

	for i, e := range events {
		if reply.DropAfter > 0 && i > reply.DropAfter {
			return // the connection closes: no finish, no [DONE]
		}
		if reply.StreamError != "" && i == finishAt {
			s.streamError(w, reply.StreamError)
			return
		}
		if reply.ChunkDelay > 0 {
			select {
			case <-time.After(reply.ChunkDelay):
			case <-r.Context().Done():
				return
			}
		}
		if !send(e) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// streamError writes an error event in the flavour's shape.
func (s *Server) streamError(w http.ResponseWriter, msg string) {
	var body any = map[string]any{"error": map[string]any{"code": 500, "message": msg, "type": "server_error"}}
	if s.cfg.flavor == VLLM {
		body = map[string]any{"error": map[string]any{"message": msg, "type": "InternalServerError", "param": nil, "code": 500}}
	}
	data, _ := json.Marshal(body)
	fmt.Fprintf(w, "data: %s\n\n", data)
}

// callEvents are the deltas of one tool call: llama-server sends the id,
// type and name with empty arguments first, vLLM the id, type and name
// alone; then the arguments follow in pieces.
func (s *Server) callEvents(chunk func(map[string]any, any) map[string]any, reply Reply, i int, call Call, seq int) []map[string]any {
	id := fmt.Sprintf("call_%d_%d", seq, i)
	switch {
	case s.cfg.nineIDs:
		id = fmt.Sprintf("A%04dB%03d", seq%10000, i%1000)
	case s.cfg.flavor == VLLM:
		id = fmt.Sprintf("chatcmpl-tool-%d%d", seq, i)
	}
	delta := func(tc map[string]any) map[string]any {
		return chunk(map[string]any{"tool_calls": []any{tc}}, nil)
	}
	if reply.NoIndex || reply.ArgsAsObject {
		tc := map[string]any{"type": "function", "function": map[string]any{"name": call.Name}}
		if !reply.NoIndex {
			tc["index"] = i
		}
		if !reply.NoIDs {
			tc["id"] = id
		}
		if reply.ArgsAsObject && json.Valid([]byte(call.Args)) {
			tc["function"].(map[string]any)["arguments"] = json.RawMessage(call.Args)
		} else {
			tc["function"].(map[string]any)["arguments"] = call.Args
		}
		return []map[string]any{delta(tc)}
	}
	first := map[string]any{"index": i, "type": "function", "function": map[string]any{"name": call.Name}}
	if s.cfg.flavor != VLLM {
		first["function"].(map[string]any)["arguments"] = ""
	}
	if !reply.NoIDs {
		first["id"] = id
	}
	out := []map[string]any{delta(first)}
	for _, p := range argPieces(call.Args) {
		out = append(out, delta(map[string]any{"index": i, "function": map[string]any{"arguments": p}}))
	}
	return out
}

// pieces splits text into word-sized pieces.
func pieces(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexAny(text[1:], " \n")
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// argPieces splits arguments text into pieces of a few bytes, cutting
// inside keys and strings as token streams do.
func argPieces(args string) []string {
	var out []string
	r := []rune(args)
	for len(r) > 5 {
		out = append(out, string(r[:5]))
		r = r[5:]
	}
	if len(r) > 0 {
		out = append(out, string(r))
	}
	return out
}
