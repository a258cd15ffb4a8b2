package ollama_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
)

// TestChatLimits: a server that stalls or never stops cannot hang a reply;
// each limit ends it with a clear message and keeps what arrived.
func TestChatLimits(t *testing.T) {
	tests := []struct {
		name       string
		reply      ollamatest.Reply
		limits     ollama.Limits
		numPredict int
		sentinel   error
		message    string
		content    string // a prefix of what must be kept
	}{
		{name: "no response headers", reply: ollamatest.Reply{Content: "never", NoHeaders: true},
			limits: ollama.Limits{HeaderTimeout: 300 * time.Millisecond}, sentinel: models.ErrStalled,
			message: "sent no response headers within 300ms"},
		{name: "silent mid-stream", reply: ollamatest.Reply{Content: "one two three four five", StallAfter: 2},
			limits: ollama.Limits{IdleTimeout: 300 * time.Millisecond}, sentinel: models.ErrStalled,
			message: "sent nothing for 300ms", content: "one two"},
		{name: "endless past num_predict", reply: ollamatest.Reply{Content: "start", Endless: true},
			numPredict: 100, sentinel: models.ErrReplyTooLong, message: "far past num_predict (100 tokens)", content: "start again0"},
		{name: "endless past the size cap", reply: ollamatest.Reply{Content: "start", Endless: true},
			limits: ollama.Limits{MaxReplyBytes: 4000}, sentinel: models.ErrReplyTooLong, message: "passed 4000 bytes", content: "start again0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
			s.Script(tt.reply)
			c, err := ollama.New(s.URL(), ollama.WithLimits(tt.limits))
			if err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			reply, err := c.Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: userMsg("hi"),
				Options: models.Options{NumCtx: 4096, NumPredict: tt.numPredict}}, nil)
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("took %s", took)
			}
			if !errors.Is(err, tt.sentinel) || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("error %v, want %v saying %q", err, tt.sentinel, tt.message)
			}
			if !strings.HasPrefix(reply.Message.Content, tt.content) {
				t.Errorf("kept %q, want it to start with %q", reply.Message.Content, tt.content)
			}
		})
	}
}

// TestChatNonObjectArguments: arguments sent as a string, a number or a
// list reach the caller raw, for the tool to correct, instead of failing
// the reply.
func TestChatNonObjectArguments(t *testing.T) {
	for _, raw := range []string{`"README.md"`, `42`, `["a","b"]`, `"{\"path\": \"x\"}"`, `null`, `true`} {
		t.Run(raw, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
			s.Script(ollamatest.Reply{Content: "calling", ToolCalls: []ollamatest.Call{
				{Name: "read_file", RawArgs: raw}, {Name: "read_file", Args: `{"path":"ok.go"}`}}})
			reply, err := newClient(t, s).Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: userMsg("hi"),
				Tools: []models.ToolSpec{readFileSpec()}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			calls := reply.Message.ToolCalls
			if len(calls) != 2 || string(calls[0].Arguments) != raw || string(calls[1].Arguments) != `{"path":"ok.go"}` {
				t.Fatalf("calls %+v", calls)
			}
		})
	}
}

// TestChatErrorUnderAnOddKey: Ollama's harmony parser wrote its error
// under the key "error parsing tool call" (ollama/ollama#11781), verbatim
// below; the line is the server failing to parse the model's call, not an
// empty reply, so the caller can retry in the text protocol.
func TestChatErrorUnderAnOddKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintln(w, `{"model":"gpt-oss:20b","created_at":"2025-08-07T10:00:00Z","message":{"role":"assistant","content":"","thinking":"Need to read."},"done":false}`)
		fmt.Fprintln(w, `{"error parsing tool call":"invalid character 'c' looking for beginning of value"}`)
	}))
	defer srv.Close()
	c, err := ollama.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(t.Context(), models.Request{Model: "gpt-oss:20b", Messages: userMsg("hi"), Options: models.Options{NumCtx: 4096}}, nil)
	if !errors.Is(err, models.ErrToolParse) || !strings.Contains(err.Error(), "invalid character 'c'") {
		t.Errorf("error = %v, want a tool-parse error", err)
	}
}
