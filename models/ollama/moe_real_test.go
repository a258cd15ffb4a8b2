//go:build realollama

package ollama_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollama"
)

// TestRealShowMoE reads tiny-moe, a mixture of experts written with
// Ollama's own GGUF writer (mkgguf: 4 layers, each with a router, 8 routed
// experts of width 32 over 64 dims, 2 of them working on each token, and a
// shared expert; F16 matrices, F32 norms), from the real /api/show, and
// plans it. The sizes follow from the shapes alone.
func TestRealShowMoE(t *testing.T) {
	host := os.Getenv("TERN_REAL_OLLAMA_HOST")
	if host == "" {
		t.Fatal("TERN_REAL_OLLAMA_HOST is not set: run make test-real")
	}
	// What the server sends when not asked to be verbose: Ollama 0.17
	// lists the tensors anyway, which Show relies on to skip the verbose
	// answer (and its vocabulary).
	resp, err := http.Post("http://"+host+"/api/show", "application/json", strings.NewReader(`{"model":"tiny-moe"}`))
	if err != nil {
		t.Fatal(err)
	}
	var raw api.ShowResponse
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(raw.Tensors) == 0 {
		t.Error("/api/show lists no tensors unless verbose: Show's comment and its one request are wrong")
	}

	client, err := ollama.New(host)
	if err != nil {
		t.Fatal(err)
	}
	info, err := client.Show(t.Context(), "tiny-moe")
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		if m.Name == "tiny-moe:latest" {
			info.SizeBytes = m.SizeBytes
		}
	}
	const (
		hidden, width, experts = 64, 32, 8
		f16                    = 2
		// gate, up and down projections of every routed expert.
		perLayer = 3 * hidden * width * experts * f16
		// the shared expert's three projections and its F32 gate.
		shared = 4 * (3*hidden*width*f16 + hidden*4)
	)
	if info.Architecture != "qwen3moe" || !info.MoE() || info.ExpertCount != experts || info.ExpertUsedCount != 2 || info.ExpertFFLength != width {
		t.Errorf("%s: %d experts, %d a token, width %d", info.Architecture, info.ExpertCount, info.ExpertUsedCount, info.ExpertFFLength)
	}
	if len(info.ExpertBytes) != 4 {
		t.Fatalf("expert bytes %v, want 4 layers", info.ExpertBytes)
	}
	for i, b := range info.ExpertBytes {
		if b != perLayer {
			t.Errorf("layer %d: routed experts %d bytes, want %d", i, b, perLayer)
		}
	}
	if info.SharedExpertBytes != shared {
		t.Errorf("shared experts %d bytes, want %d", info.SharedExpertBytes, shared)
	}
	if info.TensorBytes <= 4*perLayer || info.SizeBytes < info.TensorBytes {
		t.Errorf("tensors %d bytes, file %d bytes", info.TensorBytes, info.SizeBytes)
	}
	if !strings.Contains(info.GGUFPath, "sha256-") {
		t.Errorf("model file %q: not the blob the Modelfile's FROM names", info.GGUFPath)
	}

	// A GPU that holds all but the experts of two layers next to the
	// smallest window: those two layers' experts go to RAM.
	plain := ollama.PlanContext(info, ollama.Memory{VRAM: 64 << 30}, 0)
	if plain.Experts == nil || !plain.Experts.AllOnGPU {
		t.Fatalf("on 64 GiB: %+v\n%s", plain.Experts, strings.Join(plain.Explanation, "\n"))
	}
	kv := plain.Candidates[0].KVBytes // the trained 4096 tokens
	dense := info.SizeBytes - 4*perLayer
	staging := int64(perLayer / 3)
	fixed := dense + dense/10 + 512<<20 + staging
	vram := fixed + kv + 2*(perLayer+perLayer/10) + 1000
	p := ollama.PlanContext(info, ollama.Memory{VRAM: vram, RAM: 1 << 30}, 0)
	text := strings.Join(p.Explanation, "\n")
	if p.NumCtx != 4096 || p.Experts == nil || p.Experts.CPULayers != 2 || p.Experts.RAMBytes != 2*perLayer {
		t.Errorf("window %d, experts %+v\n%s", p.NumCtx, p.Experts, text)
	}
	if !strings.Contains(text, "mixture of experts: 8 experts a layer, 2 working on each token and shared ones") ||
		!strings.Contains(text, "(from the tensor list)") || !strings.Contains(text, "llama-server --n-cpu-moe 2") {
		t.Errorf("explanation:\n%s", text)
	}
}
