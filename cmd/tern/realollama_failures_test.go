//go:build realollama

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The byte-level vocabulary of the tiny models takes about four times the
// tokens tern's counter estimates: the first requests overflow a small
// window, Ollama cuts the prompt silently, and tern must notice.
func TestRealTruncationDetected(t *testing.T) {
	f := realFixture(t)
	// Whether the turn still ends with an answer in 1,024 tokens (exit 0)
	// or gets stuck re-reading (exit 5) depends on how large the tier-0
	// prompt is today; this test is about the detection.
	out, _ := f.realTern(-1, "ask", "--json", "--model", "tiny-script", "--ctx", "1024", "What is the release codename? Read NOTES.md.")
	var truncated, warned bool
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if u, ok := ev["usage"].(map[string]any); ok && u["truncated"] == true {
			truncated = true
		}
		if ev["type"] == "notice" && strings.Contains(ev["text"].(string), "the start of the prompt was probably cut") {
			warned = true
		}
	}
	if !truncated || !warned {
		t.Errorf("truncation not detected (usage truncated %v, notice %v):\n%s", truncated, warned, out)
	}
}

// Behaviour 1: a model in a repetition loop. Ollama ends the stream with
// no done line; tern keeps the text, says what happened, corrects the
// model and stops the turn when it keeps looping. Not an error, but the
// turn did not get its work done: exit 5 (stuck).
func TestRealRepetitionLoop(t *testing.T) {
	f := realFixture(t)
	out, errOut := f.realTern(exitStuck, "ask", "--model", "tiny-loop", "say hello")
	if !strings.Contains(out, "hello hello hello") {
		t.Errorf("the looping text was not kept: %q", out)
	}
	wantIn(t, "stderr", errOut,
		"Ollama stopped the reply because the model kept repeating the same words",
		"stopped: the model kept repeating the same words after two corrections")
	wantNotIn(t, "stderr", errOut, "ended early", "error")
}

// Behaviour 2: Ollama's template tool parser drops a call whose JSON does
// not parse (HTTP 200, empty, eval_count > 0). tern retries in the text
// protocol, repairs the raw call, runs it, and the model answers.
func TestRealDroppedToolCall(t *testing.T) {
	f := realFixture(t)
	out, errOut := f.realTern(0, "ask", "--model", "tiny-badcall", "What is the release codename? Read NOTES.md.")
	wantIn(t, "stderr", errOut,
		"the server dropped a tool call it could not parse; retrying in the text tool protocol", "✓ NOTES.md")
	wantNotIn(t, "stderr", errOut, "empty reply")
	if strings.TrimSpace(out) != codename {
		t.Errorf("stdout = %q, want %q", out, codename)
	}
}

// Behaviour 3: a built-in parser (PARSER qwen3) fails with HTTP 500
// "failed to parse JSON: …", in both protocols. tern recognises the shape,
// retries in the text protocol, then corrects the model; the loop guard
// stops the turn. Not exit 1, but 5 (stuck).
func TestRealToolParse500(t *testing.T) {
	f := realFixture(t)
	_, errOut := f.realTern(exitStuck, "ask", "--model", "tiny-badcall-parser", "What is the release codename? Read NOTES.md.")
	wantIn(t, "stderr", errOut,
		"the server could not parse the model's tool call; retrying in the text tool protocol",
		"stopped: the model could not write a readable tool call")
}

// Behaviour 3: a runner that dies loading the model is retried once, with
// a hint, and then reported as one line.
func TestRealCrashedRunner(t *testing.T) {
	f := realFixture(t)
	_, errOut := f.realTern(1, "ask", "--model", "tiny-crash", "hi")
	wantIn(t, "stderr", errOut, "Ollama's model runner crashed (llama runner process has terminated: error loading model: missing tensor", "retrying once", "the same again when retried")
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 2 {
		t.Errorf("want a notice, the retry notice's hint and one error line; got %d lines:\n%s", n+1, errOut)
	}
}

// Behaviour 4: --ctx above the trained context is lowered by tern, said,
// and recorded; Ollama never has to clamp it.
func TestRealCtxClamped(t *testing.T) {
	f := realFixture(t)
	logPath := os.Getenv("TERN_REAL_OLLAMA_LOG")
	if logPath == "" {
		t.Fatal("TERN_REAL_OLLAMA_LOG is not set: make test-real points it at the server log")
	}
	before := logSize(t, logPath)
	out, errOut := f.realTern(0, "ask", "--model", "tiny-script", "--ctx", "16384", "What is the release codename? Read NOTES.md.")
	wantIn(t, "stderr", errOut, "--ctx 16384 is above the model's trained context of 4096 tokens; using 4096")
	if strings.TrimSpace(out) != codename {
		t.Errorf("stdout = %q", out)
	}
	for _, m := range f.turns() {
		if m.NumCtx != 4096 {
			t.Errorf("request recorded with num_ctx %d, want 4096", m.NumCtx)
		}
	}
	if ctx := loadedContext(t, "tiny-script:latest"); ctx != 4096 {
		t.Errorf("/api/ps: served with %d", ctx)
	}
	if log := logSince(t, logPath, before); strings.Contains(log, "requested context size too large") {
		t.Errorf("Ollama had to clamp the window itself:\n%s", log)
	}
	doc, _ := f.realTern(0, "doctor", "--model", "tiny-script", "--ctx", "16384")
	wantIn(t, "doctor", doc, "--ctx 16384 is above the model's trained context of 4096 tokens; using 4096", "Context     ✓ 4096 tokens (--ctx)")
}

// Behaviour 5: the planner reads hybrid and sliding-window layouts from
// the real /api/show (the hybrid's per-layer array comes only verbose).
func TestRealPlannerLayouts(t *testing.T) {
	f := realFixture(t)
	_, out, _ := f.tern(t.Context(), "doctor", "--model", "tiny-hybrid")
	// 2 of 8 layers attend: 2 × 2 KV heads × (16+16) dims × 2 bytes = 256 B.
	wantIn(t, "doctor tiny-hybrid", out,
		"2 (K,V) × 2 of 8 layers × 2 KV heads × 16 head dim", "per-layer attention.head_count_kv", "= 256 B",
		"6 recurrent layers keep a fixed state")
	_, out, _ = f.tern(t.Context(), "doctor", "--model", "tiny-gemma")
	// gemma3: layers 6 and 12 global, 10 sliding over 512 tokens.
	wantIn(t, "doctor tiny-gemma", out,
		"2 (K,V) × 2 of 12 layers", "sliding window 512 tokens: assumed in 5 of every 6 layers", "10 sliding-window layers")
	// A mixture of experts, its experts read tensor by tensor: 4 layers
	// of 8 experts × 3 projections of 64×32 F16 = 384 KiB.
	_, out, _ = f.tern(t.Context(), "doctor", "--model", "tiny-moe")
	wantIn(t, "doctor tiny-moe", out,
		"mixture of experts: 8 experts a layer, 2 working on each token and shared ones; routed experts 384 KiB of",
		"(from the tensor list)", "the whole model fits, experts included",
		"Experts     ✓ mixture of experts: all 4 layers' experts fit on the GPU with the window")
}

// Behaviour 9: a model stuck repeating words hands the turn to
// escalate_model, a scripted mixture of experts on the same Ollama, which
// reads NOTES.md and answers; the session's model takes the next turn.
func TestRealEscalation(t *testing.T) {
	f := realFixture(t)
	f.config("escalate_model = \"tiny-moe\"\n")
	out, errOut := f.realTern(0, "ask", "--model", "tiny-loop", "What is the release codename? Read NOTES.md.")
	wantIn(t, "stderr", errOut, "is stuck (the same words again and again): tiny-moe:latest takes over this turn (window 4096 tokens)", "✓ NOTES.md")
	if !strings.Contains(out, codename) {
		t.Errorf("stdout = %q, want the big model's %q", out, codename)
	}
	turns := f.turns()
	if last := turns[len(turns)-1]; last.Model != "tiny-moe:latest" {
		t.Errorf("the last request went to %s", last.Model)
	}
}
