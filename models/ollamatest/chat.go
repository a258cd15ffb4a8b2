package ollamatest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// handleUnload answers a chat request with no messages and keep_alive 0,
// Ollama's way to unload a model. Unloads are counted (Server.Unloads), not
// recorded with the chat requests.
func (s *Server) handleUnload(w http.ResponseWriter, req api.ChatRequest) {
	m, ok := s.lookup(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	s.unload(m.Name)
	s.mu.Lock()
	s.unloads++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(),
		Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "unload",
	})
}

// handleChat follows server/routes.go ChatHandler in Ollama v0.17.4: the
// same checks in the same order, with the same error texts.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.ChatRequest
	if !decode(w, r, &req) {
		return
	}
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 && req.Model != "" {
		s.handleUnload(w, req)
		return
	}
	s.mu.Lock()
	s.records = append(s.records, Record{Request: req})
	idx := len(s.records) - 1
	s.mu.Unlock()
	update := func(f func(*Record)) {
		s.mu.Lock()
		defer s.mu.Unlock()
		f(&s.records[idx])
	}
	fail := func(status int, msg string) {
		update(func(rec *Record) { rec.Status = status })
		writeError(w, status, msg)
	}

	if strings.TrimSpace(req.Model) == "" {
		fail(http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.lookup(req.Model)
	if !ok {
		fail(http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	think := req.Think
	if m.has("thinking") {
		if think == nil {
			think = &api.ThinkValue{Value: true} // thinking models think unless told not to
		}
	} else if think != nil && think.Bool() {
		fail(http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}
	if !m.has("completion") {
		fail(http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	if len(req.Tools) > 0 && !m.has("tools") {
		fail(http.StatusBadRequest, fullName(m.Name)+" does not support tools")
		return
	}
	numCtx, fresh, reloaded := s.load(m, req.Options, req.KeepAlive)
	load := fakeLoad(fresh, start)
	update(func(rec *Record) { rec.NumCtx, rec.Reloaded = numCtx, reloaded })
	if len(req.Messages) == 0 {
		update(func(rec *Record) { rec.Status = http.StatusOK })
		writeJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load",
		})
		return
	}

	fit := fitPrompt(s.count, req.Messages, req.Tools, numCtx)
	if fit.over && req.Truncate != nil && !*req.Truncate {
		fail(http.StatusBadRequest, "the input length exceeds the context length")
		return
	}
	if think != nil && think.IsString() && m.Family != "gptoss" && m.Family != "gpt-oss" {
		fail(http.StatusBadRequest, fmt.Sprintf("think value %q is not supported for this model", think.String()))
		return
	}

	reply, ok := s.next(req)
	if !ok {
		if s.tb != nil {
			s.tb.Errorf("ollamatest: unexpected /api/chat request %d for %s: the script is empty and no responder is set", idx+1, req.Model)
		}
		fail(http.StatusInternalServerError, "ollamatest: no scripted reply for this request")
		return
	}
	if reply.Status != 0 {
		msg := reply.Error
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		fail(reply.Status, msg)
		return
	}

	promptEval := min(fit.tokens, numCtx)
	if reply.PromptEvalCount > 0 {
		promptEval = reply.PromptEvalCount
	}
	update(func(rec *Record) {
		rec.PromptTokens, rec.PromptEvalCount = fit.full, promptEval
		rec.Truncated, rec.DroppedMessages = fit.over || fit.dropped > 0, fit.dropped
	})

	thinking := m.has("thinking") && think.Bool()
	out := s.build(req, reply, thinking)
	if out.err != "" {
		if s.tb != nil {
			s.tb.Errorf("ollamatest: scripted reply %d: %s", idx+1, out.err)
		}
		fail(http.StatusInternalServerError, "ollamatest: "+out.err)
		return
	}
	if s.toolParser && len(req.Tools) > 0 {
		out.chunks = parseCalls(m, req, out.chunks)
	}
	var stopped bool
	out.chunks, stopped = s.cutRepeats(out.chunks)
	done := reply.DoneReason
	if done == "" {
		done = "stop"
	}
	evalCount := max(s.count(out.generated), len(out.chunks), 1)
	metrics := api.Metrics{
		LoadDuration:       load,
		PromptEvalCount:    promptEval,
		PromptEvalDuration: time.Duration(promptEval) * 250 * time.Microsecond, // ~4000 tokens/s prefill
		EvalCount:          evalCount,
		EvalDuration:       time.Duration(evalCount) * 25 * time.Millisecond, // ~40 tokens/s
	}
	metrics.TotalDuration = metrics.LoadDuration + metrics.PromptEvalDuration + metrics.EvalDuration + time.Since(start)
	final := api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(),
		Message: api.Message{Role: "assistant"}, Done: true, DoneReason: done, Metrics: metrics,
	}
	if stopped {
		// The repetition stop: no final line, no metrics.
		final = api.ChatResponse{Model: req.Model, Message: api.Message{Role: "assistant"}}
	}
	update(func(rec *Record) { rec.Status = http.StatusOK })

	if req.Stream != nil && !*req.Stream {
		s.answerWhole(w, r, reply, out, final)
		return
	}
	s.stream(w, r, reply, out, final)
}

// next takes the next scripted reply, or asks the responder.
func (s *Server) next(req api.ChatRequest) (Reply, bool) {
	s.mu.Lock()
	if len(s.script) > 0 {
		r := s.script[0]
		s.script = s.script[1:]
		s.mu.Unlock()
		return r, true
	}
	respond := s.respond
	s.mu.Unlock()
	if respond == nil {
		return Reply{}, false
	}
	return respond(req), true
}

// output is a reply cut into the chunks the server streams.
type output struct {
	chunks    []api.ChatResponse
	generated string // all generated text, for eval_count
	err       string // the script is broken
}

func (s *Server) build(req api.ChatRequest, reply Reply, thinking bool) output {
	var out output
	chunk := func(msg api.Message) {
		msg.Role = "assistant"
		out.chunks = append(out.chunks, api.ChatResponse{Model: req.Model, Message: msg})
	}
	if thinking {
		for _, p := range pieces(reply.Thinking) {
			chunk(api.Message{Thinking: p})
		}
		out.generated += reply.Thinking
	}
	parts := reply.Chunks
	if parts == nil {
		parts = pieces(reply.Content)
	}
	var calls []api.ToolCall
	for i, c := range reply.ToolCalls {
		if len(req.Tools) == 0 {
			// No tools in the request: the model's call stays text.
			name, _ := json.Marshal(c.Name)
			text := fmt.Sprintf("<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>", name, c.Args)
			if len(parts) > 0 {
				text = "\n" + text
			}
			parts = append(parts, pieces(text)...)
			continue
		}
		if c.RawArgs != "" {
			calls = append(calls, rawArgsCall(i, c))
			out.generated += c.Name + c.RawArgs
			continue
		}
		args := api.NewToolCallFunctionArguments()
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
			out.err = fmt.Sprintf("tool call %s: args %q are not a JSON object: %v", c.Name, c.Args, err)
			return out
		}
		calls = append(calls, api.ToolCall{
			ID:       cmp.Or(c.ID, callID()),
			Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args},
		})
		out.generated += c.Name + c.Args
	}
	for _, p := range parts {
		chunk(api.Message{Content: p})
		out.generated += p
	}
	for _, c := range calls {
		chunk(api.Message{ToolCalls: []api.ToolCall{c}})
	}
	return out
}

// stream writes NDJSON as streamResponse in server/routes.go does.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, reply Reply, out output, final api.ChatResponse) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	written := false
	line := func(data []byte) {
		_, _ = w.Write(data)
		if flusher != nil {
			flusher.Flush()
		}
		written = true
	}
	emit := func(v any) {
		data, _ := json.Marshal(v)
		line(append(withRawArgs(data, reply.ToolCalls), '\n'))
	}
	if reply.NoHeaders {
		s.hang(r)
		return
	}
	for i, c := range out.chunks {
		if reply.StallAfter > 0 && i == reply.StallAfter {
			s.hang(r)
			return
		}
		if reply.HoldAfter > 0 && i == reply.HoldAfter && !s.hold(r, reply.Release) {
			return
		}
		if reply.DropAfter < 0 || (reply.DropAfter > 0 && i == reply.DropAfter) {
			panic(http.ErrAbortHandler) // the connection closes with no done line
		}
		if !s.wait(r, reply.ChunkDelay) {
			return
		}
		if reply.MalformedLine && i == len(out.chunks)/2 {
			line([]byte(`{"model":"` + final.Model + `","created_at":"` + "\n"))
		}
		c.CreatedAt = time.Now().UTC()
		emit(c)
	}
	if reply.DropAfter != 0 {
		panic(http.ErrAbortHandler)
	}
	if reply.Endless {
		s.endless(r, reply, final.Model, emit)
		return
	}
	if reply.MalformedLine && len(out.chunks) == 0 {
		line([]byte("{\"model\":\n"))
	}
	if reply.StreamError != "" {
		if !written {
			writeError(w, http.StatusInternalServerError, reply.StreamError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"error": reply.StreamError})
		return
	}
	if !s.wait(r, reply.ChunkDelay) {
		return
	}
	if !final.Done {
		return // stopped for repetition: no final line
	}
	final.CreatedAt = time.Now().UTC()
	emit(final)
}

// answerWhole is the stream:false answer: one object with everything.
func (s *Server) answerWhole(w http.ResponseWriter, r *http.Request, reply Reply, out output, final api.ChatResponse) {
	if reply.DropAfter != 0 {
		panic(http.ErrAbortHandler)
	}
	if reply.StreamError != "" {
		writeError(w, http.StatusInternalServerError, reply.StreamError)
		return
	}
	var content, thinking strings.Builder
	for _, c := range out.chunks {
		content.WriteString(c.Message.Content)
		thinking.WriteString(c.Message.Thinking)
		final.Message.ToolCalls = append(final.Message.ToolCalls, c.Message.ToolCalls...)
	}
	final.Message.Content, final.Message.Thinking = content.String(), thinking.String()
	if !s.wait(r, reply.ChunkDelay*time.Duration(len(out.chunks))) {
		return
	}
	final.CreatedAt = time.Now().UTC()
	writeJSON(w, http.StatusOK, final)
}

// wait pauses for d, and reports false if the client went away or the
// server is closing meanwhile.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

// pieces splits text into word-like chunks, each but the first starting
// at the whitespace before a word, as model tokens usually do.
func pieces(text string) []string {
	var out []string
	start := 0
	prevSpace := true
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t'
		if space && !prevSpace && i > start {
			out = append(out, text[start:i])
			start = i
		}
		prevSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// callID is a tool call id as the server makes them: "call_" and eight
// lower-case letters and digits.
func callID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return "call_" + string(b)
}
