package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
)

// codingModel answers like a small model on a coding task: per question it
// reads a large file, greps, then answers; asked to summarise, it writes
// the notes.
func codingModel(summaries *atomic.Int32) func(api.ChatRequest) ollamatest.Reply {
	return func(req api.ChatRequest) ollamatest.Reply {
		if strings.Contains(req.Messages[0].Content, "working notes of a coding session") {
			summaries.Add(1)
			return ollamatest.Reply{Content: "Goal: learn the parser.\nFiles: big.go.\nDecisions: none.\nOpen problems: none.\nNext step: answer."}
		}
		results := 0
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
			if req.Messages[i].Role == "tool" {
				results++
			}
		}
		switch results {
		case 0:
			return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"big.go"}`}}}
		case 1:
			return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"func parse1"}`}}}
		}
		return ollamatest.Reply{Content: "It reads tokens and builds the tree. " + strings.Repeat("Errors are returned. ", 10)}
	}
}

// events parses `tern ask --json` output.
func events(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestAskLongSessionIn2kWindow drives a long session through `tern ask
// --ctx 2048 --resume`: no request ever overflows the window, the
// conversation is compacted, every turn completes, usage reports the
// calibration, and a new session starts with what was learnt.
func TestAskLongSessionIn2kWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var big strings.Builder
	for i := range 500 {
		fmt.Fprintf(&big, "// parse%d reads one token.\nfunc parse%d(in string) (string, error) { return in, nil }\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "big.go"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var summaries atomic.Int32
	f.srv.Respond(codingModel(&summaries))

	id, compacted := "", false
	var lastFactor float64
	for i := range 8 {
		args := []string{"ask", "--json", "--ctx", "2048"}
		if id != "" {
			args = append(args, "--resume", id)
		}
		code, out, errOut := f.tern(t.Context(), append(args, fmt.Sprintf("question %d: what does parse%d do with %s?", i, i, strings.Repeat("odd input ", 8)))...)
		if code != 0 {
			t.Fatalf("ask %d: exit %d\n%s", i, code, errOut)
		}
		for _, ev := range events(t, out) {
			switch ev["type"] {
			case "notice":
				if strings.Contains(ev["text"].(string), "compacted the conversation") {
					compacted = true
				}
			case "message":
				usage := ev["usage"].(map[string]any)
				for _, k := range []string{"estimate", "calibrated", "factor", "prompt_tokens", "truncated"} {
					if _, ok := usage[k]; !ok {
						t.Fatalf("usage lacks %q: %v", k, usage)
					}
				}
				lastFactor = usage["factor"].(float64)
			case "done":
				if ev["reason"] != "stop" {
					t.Fatalf("ask %d ended %v", i, ev)
				}
			}
		}
		if id == "" {
			_, list, _ := f.tern(t.Context(), "sessions")
			id = strings.Fields(strings.Split(list, "\n")[1])[0]
		}
	}
	for i, r := range f.srv.Records() {
		if r.Truncated {
			t.Errorf("request %d overflowed the window: %d tokens in %d", i, r.PromptTokens, r.NumCtx)
		}
		if r.NumCtx != 2048 {
			t.Errorf("request %d ran with num_ctx %d", i, r.NumCtx)
		}
	}
	if !compacted || summaries.Load() == 0 {
		t.Errorf("compacted = %v after %d summaries; a long session in 2k must compact", compacted, summaries.Load())
	}

	// A new session with the same model starts calibrated.
	f.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "fresh"} })
	code, out, errOut := f.tern(t.Context(), "ask", "--json", "--ctx", "2048", "hello again")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, ev := range events(t, out) {
		if ev["type"] == "message" {
			u := ev["usage"].(map[string]any)
			est, cal := u["estimate"].(float64), u["calibrated"].(float64)
			if lastFactor == 1 || cal == est {
				t.Errorf("the new session planned with factor 1 (estimate %v, calibrated %v; learnt %v)", est, cal, lastFactor)
			}
		}
	}
}

func TestDoctorUnknownArchitecture(t *testing.T) {
	t.Parallel()
	mystery := ollamatest.Model{
		Name: "mystery:latest", Family: "mystery", ParameterSize: "7B", SizeBytes: 4 << 30,
		Capabilities: []string{"completion", "tools"},
	}
	f := newFixture(t, mystery)
	code, out, _ := f.tern(t.Context(), "doctor", "--model", "mystery")
	if code != 0 {
		t.Fatalf("doctor exit %d\n%s", code, out)
	}
	for _, want := range []string{"8192 tokens (conservative fallback", "no block_count", "conservative 8k window"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompactThresholdConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("compact_threshold = 1.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := f.tern(t.Context(), "ask", "hi")
	if code != 1 || !strings.Contains(errOut, "compact_threshold must be between 0.2 and 1") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
