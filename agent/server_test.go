package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
)

// newRealisticHarness is newHarness on a fake server with the real
// server's quirks switched on.
func newRealisticHarness(t *testing.T, model ollamatest.Model, srvOpts ...ollamatest.Option) *harness {
	t.Helper()
	h := newHarness(t, model)
	opts := append([]ollamatest.Option{ollamatest.WithModels(model), ollamatest.WithCounter(counter(t).Count)}, srvOpts...)
	h.srv = ollamatest.New(t, opts...)
	client, err := ollama.New(h.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	h.agent = New(h.agent.cfg, client, h.agent.tools, h.rec, nil, counter(t))
	return h
}

func repeated(word string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = word
	}
	return out
}

// Behaviour 1: Ollama ends a looping reply with no done line. The text is
// kept, the user and the model are told, and the loop guard escalates.
func TestRepetitionStopIsALoopNotACrash(t *testing.T) {
	h := newRealisticHarness(t, ollamatest.Qwen3(), ollamatest.WithRepeatLimit(ollamatest.OllamaRepeatLimit))
	loop := append([]string{"I think"}, repeated(" hello", 60)...)
	h.srv.Script(ollamatest.Reply{Chunks: loop}, ollamatest.Reply{Content: "The file greets the reader."})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatalf("Run = %v; a repetition stop is not an error", err)
	}
	if d := h.done(); d.Reason != DoneStop || d.Error != "" {
		t.Errorf("done = %+v", d)
	}
	if !hasNotice(h, "kept repeating the same words") {
		t.Errorf("the user was not told: %q", h.notices())
	}
	kept := h.rec.messages[1]
	if kept.Role != models.RoleAssistant || !strings.HasPrefix(kept.Content, "I think hello hello") || strings.Count(kept.Content, "hello") != ollamatest.OllamaRepeatLimit+1 {
		t.Errorf("the looping text was not kept as the server sent it: %+v", kept)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "kept repeating the same words") {
		t.Errorf("the model was not told: %+v", last)
	}
	if !strings.Contains(h.answer(), "The file greets the reader.") {
		t.Errorf("answer = %q", h.answer())
	}
}

func TestRepetitionStopsTheTurnAfterTwoCorrections(t *testing.T) {
	h := newRealisticHarness(t, ollamatest.Qwen3(), ollamatest.WithRepeatLimit(ollamatest.OllamaRepeatLimit))
	for range 3 {
		h.srv.Script(ollamatest.Reply{Chunks: repeated(" hello", 40)})
	}
	if err := h.run(t.Context(), "say something"); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if d := h.done(); d.Reason != DoneStuck {
		t.Errorf("done = %+v, want stuck", d)
	}
	if !hasNotice(h, "stopped: the model kept repeating the same words") {
		t.Errorf("notices = %q", h.notices())
	}
}

// Behaviour 2: call text Ollama's template parser could not read comes
// back as an empty reply with tokens generated; tern asks again in the
// text protocol and reads the raw text itself.
func TestDroppedCallRetriesInTextProtocol(t *testing.T) {
	h := newRealisticHarness(t, ollamatest.Qwen3(), ollamatest.WithToolParser())
	broken := "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"hello.txt\",}\n</tool_call>"
	h.srv.Script(
		ollamatest.Reply{Content: broken}, // native: the server drops it
		ollamatest.Reply{Content: broken}, // text protocol: tern repairs it
		ollamatest.Reply{Content: "It says hello."},
	)
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	recs := h.srv.Records()
	if len(recs) != 3 {
		t.Fatalf("%d requests, want 3", len(recs))
	}
	if len(recs[0].Request.Tools) == 0 || len(recs[1].Request.Tools) != 0 {
		t.Errorf("want native tools first, then the text protocol: tools %d, %d", len(recs[0].Request.Tools), len(recs[1].Request.Tools))
	}
	if !hasNotice(h, "the server dropped a tool call it could not parse; retrying in the text tool protocol") {
		t.Errorf("notices = %q", h.notices())
	}
	if hasNotice(h, "empty reply") {
		t.Errorf("a dropped call was taken for an empty reply: %q", h.notices())
	}
	ends := toolEnds(h)
	if len(ends) != 1 || ends[0].IsError {
		t.Fatalf("the repaired call did not run: %+v", ends)
	}
	if !strings.Contains(h.answer(), "It says hello.") {
		t.Errorf("answer = %q", h.answer())
	}
}

// An empty reply with nothing generated is still an empty reply.
func TestEmptyReplyWithoutTokensIsNotADroppedCall(t *testing.T) {
	h := newRealisticHarness(t, ollamatest.Qwen3(), ollamatest.WithToolParser())
	h.srv.Script(ollamatest.Reply{Content: ""}, ollamatest.Reply{Content: "Hello."})
	if err := h.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	if hasNotice(h, "text tool protocol") {
		t.Errorf("an empty reply switched protocols: %q", h.notices())
	}
}

// Behaviour 3: tool-parse failures are recognised by their shape, whichever
// parser worded them; 503 and a crashed runner are retried once.
func TestServerFailuresRetried(t *testing.T) {
	tests := []struct {
		name       string
		first      ollamatest.Reply
		notice     string
		textRetry  bool
		secondFail bool
		second     *ollamatest.Reply // the retry's failure, when not first's
		wantErr    error
		waits      []time.Duration // asked for before the retry
	}{
		{name: "harmony parse 500", first: ollamatest.Reply{Status: 500, Error: ollamatest.MsgHarmonyToolParse},
			notice: "could not parse the model's tool call; retrying in the text tool protocol", textRetry: true},
		{name: "qwen3 parse 500", first: ollamatest.Reply{Status: 500, Error: ollamatest.MsgQwen3ToolParse},
			notice: "could not parse the model's tool call; retrying in the text tool protocol", textRetry: true},
		{name: "qwen3.5 parse 500", first: ollamatest.Reply{Status: 500, Error: ollamatest.MsgQwen35ToolParse},
			notice: "could not parse the model's tool call; retrying in the text tool protocol", textRetry: true},
		{name: "parse error line mid-stream", first: ollamatest.Reply{Content: "Let me", StreamError: ollamatest.MsgQwen3ToolParse},
			notice: "could not parse the model's tool call; retrying in the text tool protocol", textRetry: true},
		{name: "busy", first: ollamatest.Reply{Status: 503, Error: ollamatest.MsgBusy},
			notice: "Ollama is busy (too many requests queued); retrying once in 2s", waits: []time.Duration{busyWait}},
		{name: "runner crashed loading", first: ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerTerminated},
			notice: "Ollama's model runner crashed (llama runner process has terminated: exit status 2); retrying once", waits: []time.Duration{0}},
		{name: "runner crashed twice", first: ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerTerminated},
			notice: "retrying once", secondFail: true, wantErr: models.ErrRunnerCrashed, waits: []time.Duration{0}},
		// Ollama words the second death otherwise when the new runner is
		// gone before it takes the load request: the same failure.
		{name: "runner crashed, then gone before loading", first: ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerTerminated},
			notice: "retrying once", secondFail: true, second: &ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerLoadFailed}, wantErr: models.ErrRunnerCrashed,
			waits: []time.Duration{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRealisticHarness(t, ollamatest.Qwen3())
			var waits []time.Duration
			h.agent.pause = func(ctx context.Context, d time.Duration) bool {
				waits = append(waits, d)
				return ctx.Err() == nil
			}
			second := ollamatest.Reply{Content: "All good."}
			if tt.secondFail {
				second = tt.first
			}
			if tt.second != nil {
				second = *tt.second
			}
			h.srv.Script(tt.first, second)
			err := h.run(t.Context(), "hi")
			if !hasNotice(h, tt.notice) {
				t.Errorf("notices = %q, want %q", h.notices(), tt.notice)
			}
			recs := h.srv.Records()
			if len(recs) != 2 {
				t.Fatalf("%d requests, want 2 (one retry)", len(recs))
			}
			if got := len(recs[1].Request.Tools) == 0; got != tt.textRetry {
				t.Errorf("retry in the text protocol = %v, want %v", got, tt.textRetry)
			}
			if !slices.Equal(waits, tt.waits) {
				t.Errorf("waited %v before the retry, want %v", waits, tt.waits)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), "the same again when retried") {
					t.Errorf("Run = %v, want %v said to have been retried", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run = %v", err)
			}
			if !strings.Contains(h.answer(), "All good.") {
				t.Errorf("answer = %q", h.answer())
			}
		})
	}
}

// A model with a built-in parser (qwen3, qwen3.5) has its output parsed in
// the text protocol too: when the retry fails the same way, the model is
// corrected as for any unreadable call, and the turn goes on.
func TestParseFailureInBothProtocolsCorrectsTheModel(t *testing.T) {
	h := newRealisticHarness(t, ollamatest.Qwen3())
	fail := ollamatest.Reply{Status: 500, Error: "failed to parse JSON: invalid character '}' looking for beginning of object key string"}
	h.srv.Script(fail, fail, ollamatest.Reply{Content: "Sorry, it says hello."})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatalf("Run = %v; the model deserves a correction, not an error", err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "Your tool call could not be read: the server could not parse it (failed to parse JSON: invalid character '}'") {
		t.Errorf("the correction does not say what went wrong: %+v", last)
	}
	if !strings.Contains(h.answer(), "Sorry, it says hello.") {
		t.Errorf("answer = %q", h.answer())
	}
}

// The server's own parser failing in the text protocol, again and again,
// is no reason for the constrained mode: the server parses a constrained
// reply too. The session stays in the text protocol, its requests carry no
// format schema, and the loop guard ends the turn.
func TestServerParseFailuresDoNotConstrain(t *testing.T) {
	h := newRealisticHarness(t, ollamatest.Qwen3())
	fail := ollamatest.Reply{Status: 500, Error: "failed to parse JSON: invalid character '}' looking for beginning of object key string"}
	h.srv.Script(fail, fail, fail, fail, fail, fail, fail, fail)
	_ = h.run(t.Context(), "what does hello.txt say?")
	for i, r := range h.srv.Requests() {
		if len(r.Format) > 0 {
			t.Errorf("request %d carries a format schema %s: moved to the constrained mode", i, r.Format)
		}
	}
	if n := len(h.srv.Requests()); n < 4 {
		t.Errorf("%d requests; want the native try, its text retry and corrections", n)
	}
}
