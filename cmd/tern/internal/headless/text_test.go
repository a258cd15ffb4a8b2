package headless

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/agent"
)

func TestTextWriter(t *testing.T) {
	t.Parallel()
	done := agent.Done{Reason: agent.DoneStop, Turns: 2, PromptTokens: 900, CachedTokens: 720, CacheEstimated: true, EvalTokens: 40, Duration: 1234567890}
	for _, tt := range []struct {
		name      string
		verbose   bool
		events    []agent.Event
		out, diag string
	}{
		{
			name:   "the answer ends with a newline",
			events: []agent.Event{agent.Token{Text: "Hello"}, agent.Token{Text: ", world"}, agent.Message{}, done},
			out:    "Hello, world\n",
		},
		{
			name:   "an answer that ends its line gets no second newline",
			events: []agent.Event{agent.Token{Text: "Hello\n"}, done},
			out:    "Hello\n",
		},
		{
			name: "a tool call ends the answer's line and goes to stderr",
			events: []agent.Event{
				agent.Token{Text: "Let me look."},
				agent.ToolStart{Name: "read_file", Args: json.RawMessage(`{"path":"a.go"}`)},
				agent.ToolEnd{Name: "read_file", Summary: "read a.go (12 lines)", Output: "package a"},
				agent.Token{Text: "It is package a."},
				done,
			},
			out:  "Let me look.\nIt is package a.\n",
			diag: "▸ read_file {\"path\":\"a.go\"}\n  ✓ read a.go (12 lines)\n",
		},
		{
			name: "a failed call shows its output's first line, not its summary",
			events: []agent.Event{
				agent.ToolStart{Name: "run_command", Args: json.RawMessage(`{}`)},
				agent.ToolEnd{Name: "run_command", IsError: true, Summary: "ran", Output: "\n  exit status 1\nmore\n"},
			},
			diag: "▸ run_command \n  ✗ exit status 1\n",
		},
		{
			name:   "notices go to stderr after the answer's line",
			events: []agent.Event{agent.Token{Text: "half"}, agent.Notice{Level: agent.Warn, Text: "history dropped"}, done},
			out:    "half\n",
			diag:   "tern: history dropped\n",
		},
		{
			name:   "thinking is shown only when verbose",
			events: []agent.Event{agent.Thinking{Text: "hmm"}, agent.Token{Text: "yes"}, done},
			out:    "yes\n",
		},
		{
			name:    "verbose: thinking on a line of its own, and the turn's counts",
			verbose: true,
			events:  []agent.Event{agent.Thinking{Text: "hmm, "}, agent.Thinking{Text: "well"}, agent.Token{Text: "yes"}, done},
			out:     "yes\n",
			diag:    "thinking: hmm, well\ntern: stop · 2 requests · 900 in, ~80% cached · 40 out · 1.2s\n",
		},
		{
			name:    "verbose: thinking that ends the turn is closed",
			verbose: true,
			events:  []agent.Event{agent.Thinking{Text: "hmm"}, agent.Done{Reason: agent.DoneMaxTurns, Turns: 1}},
			diag:    "thinking: hmm\ntern: max_turns · 1 request · ? in · 0 out · 0s\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, diag strings.Builder
			w := NewText(&out, &diag, tt.verbose)
			for _, e := range tt.events {
				w.Write(e)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.out {
				t.Errorf("stdout = %q, want %q", out.String(), tt.out)
			}
			if diag.String() != tt.diag {
				t.Errorf("stderr = %q, want %q", diag.String(), tt.diag)
			}
		})
	}
}

func TestCompactArgs(t *testing.T) {
	t.Parallel()
	long := `{"content":"` + strings.Repeat("x", 200) + `"}`
	for _, tt := range []struct{ args, want string }{
		{`{"path":"a.go","start":3}`, `{"path":"a.go","start":3}`},
		{`{}`, ""},
		{``, ""},
		{`not json`, ""},
		{`["a"]`, ""},
		{long, long[:117] + "…"},
	} {
		if got := compactArgs(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("compactArgs(%.30q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestJSONWriter(t *testing.T) {
	t.Parallel()
	events := []agent.Event{
		agent.Token{Text: "hi"},
		agent.ToolStart{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"a.go"}`), Subject: "a.go"},
		agent.ToolEnd{ID: "c1", Name: "read_file", Output: "x", Summary: "read", Duration: time.Millisecond},
		agent.Notice{Level: agent.Info, Text: "n"},
		agent.Done{Reason: agent.DoneStop, Turns: 1},
	}
	var out strings.Builder
	w := NewJSON(&out)
	for _, e := range events {
		w.Write(e)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(events) {
		t.Fatalf("%d lines for %d events:\n%s", len(lines), len(events), out.String())
	}
	for i, e := range events {
		want, _ := agent.MarshalEvent(e)
		if lines[i] != string(want) {
			t.Errorf("line %d = %s, want %s", i, lines[i], want)
		}
	}
	if strings.Contains(out.String(), "Subject") {
		t.Errorf("the NDJSON stream carries the screen's subject:\n%s", out.String())
	}
}

// failAfter accepts n writes, then fails.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("pipe closed")
	}
	f.n--
	return len(p), nil
}

func TestJSONWriterKeepsItsFirstError(t *testing.T) {
	t.Parallel()
	sink := &failAfter{n: 1}
	w := NewJSON(sink)
	w.Write(agent.Token{Text: "a"})
	if err := w.Flush(); err != nil {
		t.Fatalf("first event: %v", err)
	}
	w.Write(agent.Token{Text: "b"})
	w.Write(agent.Done{Reason: agent.DoneStop})
	if err := w.Flush(); err == nil || err.Error() != "pipe closed" {
		t.Errorf("Flush = %v, want the write's error", err)
	}
}

func TestTapKeepsDone(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	var done agent.Done
	w := Tap(NewText(&out, &out, false), &done)
	w.Write(agent.Token{Text: "ok"})
	w.Write(agent.Done{Reason: agent.DoneStuck, Turns: 3})
	if done.Reason != agent.DoneStuck || done.Turns != 3 {
		t.Errorf("done = %+v, want the turn's Done", done)
	}
	if out.String() != "ok\n" {
		t.Errorf("the tapped writer got %q, want every event passed on", out.String())
	}
}
