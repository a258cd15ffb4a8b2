package ollama_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
)

// moeInfo is the fake 35B-A3B as Show reads it, with its size from the
// list of installed models.
func moeInfo(t *testing.T, m ollamatest.Model) models.ModelInfo {
	t.Helper()
	s := ollamatest.New(t, ollamatest.WithModels(m))
	info, err := newClient(t, s).Show(t.Context(), m.Name)
	if err != nil {
		t.Fatal(err)
	}
	info.SizeBytes = m.SizeBytes
	return info
}

// TestShowMoE: Show reads a mixture of experts' numbers and sizes its
// routed experts, layer by layer, from the tensor list.
func TestShowMoE(t *testing.T) {
	info := moeInfo(t, ollamatest.Qwen36MoE())
	if !info.MoE() || info.ExpertCount != 256 || info.ExpertUsedCount != 8 || info.ExpertFFLength != 512 {
		t.Errorf("experts %d, %d a token, width %d", info.ExpertCount, info.ExpertUsedCount, info.ExpertFFLength)
	}
	// 256 experts × 2048 × 512 at Q4_K (144 bytes a 256) twice, at Q6_K
	// (210 bytes a 256) once.
	const perLayer = 2*256*2048*512*144/256 + 256*512*2048*210/256
	if len(info.ExpertBytes) != 40 || info.ExpertBytes[0] != perLayer || info.ExpertBytes[39] != perLayer {
		t.Errorf("expert bytes %v, want 40 layers of %d", info.ExpertBytes, perLayer)
	}
	// One shared expert a layer: 2048×512 twice at Q4_K, once at Q6_K, and
	// its 2048 F32 gate.
	const shared = 40 * (2*2048*512*144/256 + 512*2048*210/256 + 2048*4)
	if info.SharedExpertBytes != shared {
		t.Errorf("shared experts %d bytes, want %d", info.SharedExpertBytes, shared)
	}
	if info.TensorBytes <= 40*perLayer || info.TensorBytes > info.SizeBytes {
		t.Errorf("tensors %d bytes: not more than the experts and at most the file's %d", info.TensorBytes, info.SizeBytes)
	}
	if !strings.HasSuffix(info.GGUFPath, "/blobs/sha256-"+ollamatest.Qwen36MoE().Digest) && info.GGUFPath == "" {
		t.Errorf("model file %q", info.GGUFPath)
	}
	if len(info.HeadCountKVPerLayer) != 40 {
		t.Errorf("per-layer KV heads %v: the verbose answer was not read", info.HeadCountKVPerLayer)
	}
}

func TestPlanMoE(t *testing.T) {
	moe := moeInfo(t, ollamatest.Qwen36MoE())
	// Without a tensor list the experts are estimated from the numbers.
	bare := ollamatest.Qwen36MoE()
	bare.Name, bare.Tensors = "bare:latest", nil
	estimated := moeInfo(t, bare)
	// Without expert_feed_forward_length nothing says their size.
	unsized := estimated
	unsized.ExpertFFLength = 0
	dense := unsized
	dense.ExpertCount, dense.ExpertUsedCount = 0, 0

	tests := []struct {
		name     string
		info     models.ModelInfo
		mem      ollama.Memory
		override int
		wantCtx  int
		// wantCPU is --n-cpu-moe; -1 when the plan has no experts.
		wantCPU   int
		wantClass string
		wantLines []string
	}{
		// The dense arithmetic would leave nothing for the KV cache (23.5
		// GiB of weights); with the experts in RAM the GPU holds 2.3 GiB
		// of weights, the 32k window's 703 MiB of KV cache, and the last 9
		// layers' experts.
		{"35B-A3B on 8 GiB", moe, ollama.Memory{VRAM: 8 * gib, RAM: 28 * gib}, 0, 32768, 31, "experts in RAM",
			[]string{"weights: 21.0 GiB on disk + 10% overhead + 512 MiB compute buffers = 23.5 GiB",
				"mixture of experts: 256 experts a layer, 8 working on each token and shared ones; routed experts 19.5 GiB of 21.0 GiB (from the tensor list)",
				"the GPU must hold the rest: 1.5 GiB + 10% overhead + 512 MiB compute buffers + 166 MiB for an expert tensor copied in for long prompts = 2.3 GiB",
				"32768 tokens: KV 703 MiB  fits", "chosen: 32768",
				"the last 9 layers' on the GPU (4.4 GiB), the first 31 layers' in RAM (15.1 GiB): llama-server --n-cpu-moe 31",
				"free RAM 28.0 GiB holds the experts' 15.1 GiB"}},
		{"free RAM unknown", moe, ollama.Memory{VRAM: 8 * gib}, 0, 32768, 31, "experts in RAM",
			[]string{"free RAM unknown: the 15.1 GiB of experts in RAM need that much free memory (set --ram)"}},
		{"too little RAM", moe, ollama.Memory{VRAM: 8 * gib, RAM: 12 * gib}, 0, 32768, 31, "experts read from disk",
			[]string{"free RAM 12.0 GiB does NOT hold the experts' 15.1 GiB"}},
		{"on 6 GiB more experts go to RAM", moe, ollama.Memory{VRAM: 6 * gib, RAM: 28 * gib}, 0, 32768, 35, "experts in RAM", nil},
		// 32 GiB hold it all next to 32k: planned as a dense model is.
		{"on 32 GiB it all fits", moe, ollama.Memory{VRAM: 32 * gib, RAM: 28 * gib}, 0, 32768, 0, "all on the GPU",
			[]string{"the whole model fits, experts included", "chosen: 32768"}},
		// 24 GiB hold it all next to a 16k window only: one layer's
		// experts go to RAM for the 32k window.
		{"on 24 GiB one layer's experts go to RAM", moe, ollama.Memory{VRAM: 24 * gib, RAM: 28 * gib}, 0, 32768, 1, "experts in RAM",
			[]string{"with every expert on the GPU the largest window would be 16384 tokens"}},
		{"--ctx places the experts for its window", moe, ollama.Memory{VRAM: 8 * gib, RAM: 28 * gib}, 131072, 131072, 35, "experts in RAM",
			[]string{"--ctx 131072 overrides the plan", "--n-cpu-moe 35"}},
		{"sizes estimated from the numbers", estimated, ollama.Memory{VRAM: 8 * gib, RAM: 28 * gib}, 0, 32768, 32, "experts in RAM",
			[]string{"estimated: 40 layers × 256 experts × 3 × 512 × 2048 at 5.1 bits"}},
		{"sizes unknown: planned as dense", unsized, ollama.Memory{VRAM: 8 * gib}, 0, 4096, -1, "",
			[]string{"the server lists no expert sizes: planned as a dense model", "no window fits"}},
		{"a dense model is planned as before", dense, ollama.Memory{VRAM: 8 * gib, RAM: 28 * gib}, 0, 4096, -1, "",
			[]string{"VRAM 8.0 GiB − weights 23.5 GiB = 0 B left for the KV cache", "no window fits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ollama.PlanContext(tt.info, tt.mem, tt.override)
			text := strings.Join(p.Explanation, "\n")
			cpu := -1
			if p.Experts != nil {
				cpu = p.Experts.CPULayers
			}
			if p.NumCtx != tt.wantCtx || cpu != tt.wantCPU {
				t.Errorf("num_ctx %d, --n-cpu-moe %d; want %d, %d\n%s", p.NumCtx, cpu, tt.wantCtx, tt.wantCPU, text)
			}
			for _, w := range tt.wantLines {
				if !strings.Contains(text, w) {
					t.Errorf("explanation lacks %q:\n%s", w, text)
				}
			}
			if p.Experts == nil {
				return
			}
			e := p.Experts
			if s := e.Speed(false); s.Class != tt.wantClass {
				t.Errorf("speed class %q, want %q", s.Class, tt.wantClass)
			}
			var inRAM int64
			for _, b := range e.PerLayer[:e.CPULayers] {
				inRAM += b
			}
			if e.RAMBytes != inRAM || e.NumCtx != p.NumCtx {
				t.Errorf("experts in RAM %d, want the first %d layers' %d; placed for %d tokens", e.RAMBytes, e.CPULayers, inRAM, e.NumCtx)
			}
			if e.OllamaGPULayers < 1 || e.OllamaGPULayers > e.Layers || (e.AllOnGPU && e.OllamaGPULayers != e.Layers) {
				t.Errorf("Ollama would offload %d of %d layers", e.OllamaGPULayers, e.Layers)
			}
		})
	}
}

// TestMoESpeed: the ceilings follow the bytes read, and Ollama's whole
// layers read more from RAM than experts alone.
func TestMoESpeed(t *testing.T) {
	p := ollama.PlanContext(moeInfo(t, ollamatest.Qwen36MoE()), ollama.Memory{VRAM: 8 * gib, RAM: 28 * gib}, 0)
	llama, own := p.Experts.Speed(false), p.Experts.Speed(true)
	if llama.Low <= 0 || llama.Low >= llama.High || own.Class != "whole layers on the CPU" || own.RAMRead <= llama.RAMRead || own.High >= llama.High {
		t.Errorf("llama-server %+v, Ollama %+v", llama, own)
	}
	// 8 of 256 experts of 31 layers' 15.1 GiB are read a token.
	if want := p.Experts.RAMBytes * 8 / 256; llama.RAMRead != want {
		t.Errorf("reads %d bytes from RAM a token, want %d", llama.RAMRead, want)
	}
	for _, s := range []ollama.Speed{llama, own} {
		if w := s.String(); !strings.Contains(w, "tokens/s (DDR4–DDR5)") || !strings.HasPrefix(w, s.Class+": ") {
			t.Errorf("speed in words: %q", w)
		}
	}
}

// TestCPUMoEPattern: the -ot pattern keeps exactly the routed experts of
// the first n layers in RAM, as --n-cpu-moe n does: llama.cpp matches it
// (std::regex_search) against every tensor name.
func TestCPUMoEPattern(t *testing.T) {
	if got := ollama.CPUMoEPattern(0); got != "" {
		t.Errorf("CPUMoEPattern(0) = %q", got)
	}
	if got, want := ollama.CPUMoEPattern(35), `blk\.([0-9]|[1-2][0-9]|3[0-4])\.ffn_(up|down|gate)_(ch|)exps=CPU`; got != want {
		t.Errorf("CPUMoEPattern(35) = %q, want %q", got, want)
	}
	for _, n := range []int{1, 2, 9, 10, 11, 20, 31, 40, 47, 99, 100, 101, 128} {
		pattern, _, _ := strings.Cut(ollama.CPUMoEPattern(n), "=")
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for layer := range 130 {
			for _, part := range []string{"ffn_up_exps", "ffn_gate_exps", "ffn_down_chexps", "ffn_up_shexp", "ffn_gate_inp", "attn_q"} {
				name := "blk." + strconv.Itoa(layer) + "." + part + ".weight"
				want := layer < n && strings.HasSuffix(part, "exps")
				if got := re.MatchString(name); got != want {
					t.Errorf("n=%d: %s matched %v, want %v", n, name, got, want)
				}
			}
		}
	}
}

// TestShowTensorKinds: which tensors count as routed experts, shared
// experts or neither, and the sizes of types Ollama does not name.
func TestShowTensorKinds(t *testing.T) {
	m := ollamatest.Qwen3()
	m.Name = "kinds:latest"
	m.ModelInfo = map[string]any{"qwen3.expert_count": 4, "qwen3.expert_used_count": 2}
	m.BlockCount = 3
	m.Tensors = []api.Tensor{
		{Name: "token_embd.weight", Type: "F16", Shape: []uint64{64, 100}},
		{Name: "blk.0.ffn_up.weight", Type: "F16", Shape: []uint64{64, 128}},              // a dense first layer
		{Name: "blk.1.ffn_gate_up_exps.weight", Type: "F16", Shape: []uint64{64, 256, 4}}, // gate and up in one
		{Name: "blk.1.ffn_gate_up_exps.bias", Type: "F32", Shape: []uint64{256, 4}},
		{Name: "blk.1.ffn_down_chexps.weight", Type: "Q8_0", Shape: []uint64{128, 64, 4}},
		{Name: "blk.1.ffn_gate_inp.weight", Type: "F32", Shape: []uint64{64, 4}},        // the router: not an expert
		{Name: "blk.1.ffn_down_shexp.weight", Type: "IQ4_XS", Shape: []uint64{128, 64}}, // unknown to Ollama: at Q4_K_M's 5.1 bits
	}
	info := moeInfo(t, m)
	wantLayer1 := int64(64*256*4*2 + 256*4*4 + 128*64*4*34/32)
	if len(info.ExpertBytes) != 3 || info.ExpertBytes[0] != 0 || info.ExpertBytes[1] != wantLayer1 || info.ExpertBytes[2] != 0 {
		t.Errorf("expert bytes %v, want [0 %d 0]", info.ExpertBytes, wantLayer1)
	}
	if want := int64(128 * 64 * 51 / 80); info.SharedExpertBytes != want {
		t.Errorf("shared experts %d bytes, want %d", info.SharedExpertBytes, want)
	}
}

// TestReadGGUF reads a mixture of experts written with Ollama's own GGUF
// writer from the file, as Show reads it from /api/show.
func TestReadGGUF(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moe.gguf")
	shape := ollamatest.MoEFile{Layers: 3, Hidden: 8, Width: 4, Experts: 4, Used: 2}
	if err := ollamatest.WriteMoEGGUF(path, shape); err != nil {
		t.Fatal(err)
	}
	info, err := ollama.ReadGGUF(path)
	if err != nil {
		t.Fatal(err)
	}
	const perLayer = 3 * 8 * 4 * 4 * 2
	if info.Architecture != "qwen3moe" || info.BlockCount != 3 || info.ExpertCount != 4 || info.ExpertUsedCount != 2 ||
		len(info.ExpertBytes) != 3 || info.ExpertBytes[2] != perLayer || info.GGUFPath != path || info.SizeBytes == 0 || info.Quantization != "F16" {
		t.Errorf("read %+v", info)
	}
	if _, err := ollama.ReadGGUF(filepath.Join(t.TempDir(), "none.gguf")); err == nil {
		t.Error("a missing file read")
	}
}
