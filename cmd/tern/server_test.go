package main

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// newRealisticFixture is newFixture on a fake server with the real
// server's quirks switched on.
func newRealisticFixture(t *testing.T, ms ...ollamatest.Model) *fixture {
	t.Helper()
	f := newFixture(t, ms...)
	if len(ms) == 0 {
		ms = []ollamatest.Model{ollamatest.Qwen3(), ollamatest.NomicEmbed()}
	}
	f.srv = ollamatest.New(t, ollamatest.WithModels(ms...),
		ollamatest.WithRepeatLimit(ollamatest.OllamaRepeatLimit), ollamatest.WithToolParser())
	f.env["OLLAMA_HOST"] = f.srv.URL()
	return f
}

// Behaviour 1 through the command line: a reply Ollama cut for repetition
// is kept and explained, and the turn goes on; it is not an error.
func TestAskRepetitionStop(t *testing.T) {
	t.Parallel()
	f := newRealisticFixture(t)
	chunks := []string{"Well"}
	for range 40 {
		chunks = append(chunks, " hello")
	}
	f.srv.Script(ollamatest.Reply{Chunks: chunks}, ollamatest.Reply{Content: "A demo repository."})
	code, out, errOut := f.tern(t.Context(), "ask", "what is this?")
	if code != 0 {
		t.Fatalf("exit %d; a repetition stop is no failure:\n%s", code, errOut)
	}
	if !strings.Contains(out, "Well hello hello") || !strings.Contains(out, "A demo repository.") {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(errOut, "kept repeating the same words") || strings.Contains(errOut, "ended early") {
		t.Errorf("stderr does not say plainly what happened:\n%s", errOut)
	}
}

// Behaviour 2 through the command line: a call the server's parser dropped
// is retried in the text protocol, where tern repairs it.
func TestAskDroppedCall(t *testing.T) {
	t.Parallel()
	f := newRealisticFixture(t)
	broken := "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\",}\n</tool_call>"
	f.srv.Script(ollamatest.Reply{Content: broken}, ollamatest.Reply{Content: broken}, ollamatest.Reply{Content: "A demo repository."})
	code, out, errOut := f.tern(t.Context(), "ask", "what is this?")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	for _, want := range []string{"the server dropped a tool call it could not parse; retrying in the text tool protocol", "✓ README.md"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if out != "A demo repository.\n" {
		t.Errorf("stdout = %q", out)
	}
}

// Behaviour 4: --ctx above the trained context is lowered, and said.
func TestCtxClampedToTrainedContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.TinyTools())
	f.srv.Script(ollamatest.Reply{Content: "Hi."})
	code, _, errOut := f.tern(t.Context(), "ask", "--ctx", "8192", "hi")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "--ctx 8192 is above the model's trained context of 4096 tokens; using 4096") {
		t.Errorf("stderr does not say the window was lowered:\n%s", errOut)
	}
	if got := f.srv.Records()[0].Request.Options["num_ctx"]; got != float64(4096) {
		t.Errorf("num_ctx sent = %v, want 4096", got)
	}
	code, out, _ := f.tern(t.Context(), "doctor", "--ctx", "8192")
	for _, want := range []string{"trained context: 4096 tokens", "Context     · --ctx 8192 is above the model's trained context of 4096 tokens; using 4096", "Context     ✓ 4096 tokens (--ctx)"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

// Behaviour 6: an embedding model is no chat model.
func TestEmbeddingModelAsChatModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, out, _ := f.tern(t.Context(), "doctor", "--model", "nomic-embed-text")
	if code != 1 || !strings.Contains(out, "Chat model  ✗ nomic-embed-text:latest is an embedding model and cannot chat (capabilities: embedding)") ||
		strings.Contains(out, "All checks passed") {
		t.Errorf("doctor exit %d:\n%s", code, out)
	}
	code, _, errOut := f.tern(t.Context(), "ask", "--model", "nomic-embed-text", "hi")
	if code != 1 || !strings.Contains(errOut, "is an embedding model and cannot chat") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("ask exit %d:\n%s", code, errOut)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d chat requests were sent to an embedding model", n)
	}
}

// Behaviour 6: with vectors in the index made by an installed model,
// search is not "lexical only" even when embed_model is not installed.
func TestDoctorEmbeddingsFromTheIndex(t *testing.T) {
	t.Parallel()
	embed := ollamatest.NomicEmbed()
	embed.Name = "tiny-embed:latest"
	f := newFixture(t, ollamatest.Qwen3(), embed)
	if code, _, errOut := f.tern(t.Context(), "index", "--embed-model", "tiny-embed"); code != 0 {
		t.Fatalf("index exit %d:\n%s", code, errOut)
	}
	code, out, _ := f.tern(t.Context(), "doctor")
	if code != 0 || strings.Contains(out, "lexical only") ||
		!strings.Contains(out, "Embeddings  ✓ tiny-embed:latest (the index's") {
		t.Errorf("doctor exit %d:\n%s", code, out)
	}
}
