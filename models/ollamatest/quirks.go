package ollamatest

import (
	"strings"
	"text/template"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/tools"
)

// Behaviours of the real server (Ollama v0.17.4, measured against it with
// models/ollamatest/real) that a client easily gets wrong. The first two
// are options, off by default, because many tests stream long runs of one
// word or script call text for tern's own repair to read.

// OllamaRepeatLimit is Ollama v0.17.4's limit on one token repeated in a
// row (llm/server.go): past it the prediction stops without an error.
const OllamaRepeatLimit = 30

// WithRepeatLimit stops a reply, as the real server does, once the same
// piece of text (whitespace trimmed) has come more than n times in a row:
// the stream ends with HTTP 200 and no done line; a stream:false answer
// has "done": false and no metrics. Use OllamaRepeatLimit.
func WithRepeatLimit(n int) Option {
	return func(c *config) { c.repeatLimit = n }
}

// WithToolParser runs Ollama's own template tool parser
// (github.com/ollama/ollama/tools) over the reply text whenever the request
// offers tools, as the real server does for every model without a built-in
// parser: call text after the template's tag (such as "<tool_call>")
// becomes tool_calls, and call text that does not parse is dropped, so the
// answer is HTTP 200 with empty content although eval_count counts the
// tokens generated.
func WithToolParser() Option {
	return func(c *config) { c.toolParser = true }
}

// Texts of the real server's errors, for scripted failures (Reply.Status
// with Reply.Error, or Reply.StreamError).
const (
	// MsgBusy comes with HTTP 503 when the request queue is full.
	MsgBusy = "server busy, please try again.  maximum pending requests exceeded"
	// MsgRunnerTerminated comes with HTTP 500 when the runner died while
	// loading the model.
	MsgRunnerTerminated = "llama runner process has terminated: exit status 2"
	// MsgRunnerLoadFailed comes with HTTP 500 when the runner died before
	// it took the request to load the model (a race with the message
	// above: which one comes depends on when the server sees the death).
	MsgRunnerLoadFailed = "model failed to load, this may be due to resource limitations or an internal error, check ollama server logs for details"
	// MsgRunnerError ends a stream whose runner died while generating.
	MsgRunnerError = "an error was encountered while running the model: unexpected EOF"
	// Tool-call parsers fail in their own words (HTTP 500, or an error
	// line when the stream had begun): harmony (gpt-oss), qwen3 and
	// qwen3.5 / qwen3-vl.
	MsgHarmonyToolParse = `error parsing tool call: raw='{"path": "a.go"', err=unexpected end of JSON input`
	MsgQwen3ToolParse   = "failed to parse JSON: unexpected end of JSON input"
	MsgQwen35ToolParse  = "invalid character ']' after object key:value pair"
)

// repeatStop follows Ollama's check: it sees each piece and reports
// whether the server would stop before sending it.
type repeatStop struct {
	limit int
	last  string
	run   int
}

func (r *repeatStop) stop(piece string) bool {
	if r.limit <= 0 {
		return false
	}
	t := strings.TrimSpace(piece)
	if t == r.last {
		r.run++
	} else {
		r.last, r.run = t, 0
	}
	return r.run > r.limit
}

// parseCalls passes the chunks' content through Ollama's tool parser for
// the model's template, as server/routes.go does: content before the tag
// streams on, parsed calls become tool_calls chunks, and what is held at
// the end but never parsed is dropped.
func parseCalls(m Model, req api.ChatRequest, chunks []api.ChatResponse) []api.ChatResponse {
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"json": func(any) string { return "" }, "currentDate": func() string { return "" },
		"yesterdayDate": func() string { return "" }, "toTypeScriptType": func(any) string { return "" },
	}).Parse(m.Template)
	if err != nil {
		tmpl = nil // the parser then looks for bare JSON, as Ollama does
	}
	p := tools.NewParser(tmpl, req.Tools)
	var out []api.ChatResponse
	for _, c := range chunks {
		if c.Message.Content == "" {
			out = append(out, c)
			continue
		}
		calls, content := p.Add(c.Message.Content)
		switch {
		case content != "":
			c.Message.Content = content
		case len(calls) > 0:
			for i := range calls {
				calls[i].ID = callID()
			}
			c.Message.Content, c.Message.ToolCalls = "", calls
		default:
			continue // held by the parser
		}
		out = append(out, c)
	}
	if rest := p.Content(); rest != "" {
		out = append(out, api.ChatResponse{Model: req.Model, Message: api.Message{Role: "assistant", Content: rest}})
	}
	return out
}

// cutRepeats ends the chunks where the server's repetition check would stop
// the prediction, and reports whether it did.
func (s *Server) cutRepeats(chunks []api.ChatResponse) ([]api.ChatResponse, bool) {
	r := repeatStop{limit: s.repeatLimit}
	for i, c := range chunks {
		piece := c.Message.Content + c.Message.Thinking
		if piece != "" && r.stop(piece) {
			return chunks[:i], true
		}
	}
	return chunks, false
}
