package ollama_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
)

const gib = 1 << 30

// Real model shapes, as /api/show and /api/tags report them.
var (
	qwen3 = models.ModelInfo{
		Name: "qwen3:8b", Quantization: "Q4_K_M", SizeBytes: 5225387923, ParameterCount: 8190735360,
		ContextLength: 40960, BlockCount: 36, HeadCount: 32, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 4096,
	}
	llama32 = models.ModelInfo{
		Name: "llama3.2:3b", Quantization: "Q4_K_M", SizeBytes: 2019393189, ParameterCount: 3212749888,
		ContextLength: 131072, BlockCount: 28, HeadCount: 24, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 3072,
	}
	qwenCoder = models.ModelInfo{
		Name: "qwen2.5-coder:7b", Quantization: "Q4_K_M", SizeBytes: 4683087332, ParameterCount: 7615616512,
		ContextLength: 32768, BlockCount: 28, HeadCount: 28, HeadCountKV: 4, KeyLength: 128, ValueLength: 128, EmbeddingLength: 3584,
	}
)

func TestPlanContext(t *testing.T) {
	noSize := qwen3
	noSize.SizeBytes = 0
	short := qwen3
	short.ContextLength = 2048
	unknown := models.ModelInfo{Name: "mystery", SizeBytes: 4 * gib, ContextLength: 4096}
	unknownNoMax := models.ModelInfo{Name: "mystery", SizeBytes: 4 * gib}
	mla := models.ModelInfo{Name: "mla", SizeBytes: gib, ContextLength: 163840, BlockCount: 27, HeadCountKV: 16, KeyLength: 192, ValueLength: 128}

	qwen35 := models.ModelInfo{Name: "qwen3.5:9b", Architecture: "qwen35", SizeBytes: 6_594_000_000, ContextLength: 262144,
		BlockCount: 32, HeadCount: 16, HeadCountKV: 4, KeyLength: 256, ValueLength: 256, FullAttentionInterval: 4,
		SSMConvKernel: 4, SSMInnerSize: 4096, SSMStateSize: 128, SSMGroupCount: 16}
	qwen35Interval := qwen35
	for i := range 32 {
		h := 0
		if (i+1)%4 == 0 {
			h = 4
		}
		qwen35.HeadCountKVPerLayer = append(qwen35.HeadCountKVPerLayer, h)
	}
	gemma3 := models.ModelInfo{Name: "gemma3:4b", Architecture: "gemma3", SizeBytes: 3_338_801_804, ContextLength: 131072,
		BlockCount: 34, HeadCount: 8, HeadCountKV: 4, KeyLength: 256, ValueLength: 256, SlidingWindow: 1024}
	slidingUnknown := qwen3
	slidingUnknown.SlidingWindow = 4096

	tests := []struct {
		name       string
		info       models.ModelInfo
		vram       int64
		override   int
		wantCtx    int
		wantSource string
		wantKV     int64
		wantLines  []string
	}{
		// 36 × 8 × 128 × 2 × 2 = 144 KiB a token. Weights 5.2 GB + 10% +
		// 512 MiB = 5.9 GiB, leaving 2.1 GiB: 12k (1.7 GiB) fits, 16k (2.25 GiB) does not.
		{"qwen3:8b on 8 GiB", qwen3, 8 * gib, 0, 12288, "planned", 147456,
			[]string{"36 layers × 8 KV heads × 128 head dim", "144 KiB", "12288 tokens: KV 1.7 GiB  fits", "16384 tokens: KV 2.2 GiB  too big", "chosen: 12288"}},
		{"qwen3:8b on 16 GiB", qwen3, 16 * gib, 0, 32768, "planned", 147456, nil},
		{"vram unknown means 8 GiB", qwen3, 0, 0, 12288, "planned", 147456, []string{"VRAM budget unknown"}},
		// 28 × 8 × 128 × 4 = 112 KiB a token; 32k is 3.5 GiB next to 2.6 GiB of weights.
		{"llama3.2:3b on 8 GiB", llama32, 8 * gib, 0, 32768, "planned", 114688, nil},
		// 28 × 4 × 128 × 4 = 56 KiB a token; capped by the trained 32768.
		{"qwen2.5-coder:7b on 8 GiB", qwenCoder, 8 * gib, 0, 32768, "planned", 57344, nil},
		{"qwen2.5-coder:7b on 6 GiB", qwenCoder, 6 * gib, 0, 12288, "planned", 57344, nil},
		{"nothing fits", qwen3, 4 * gib, 0, 4096, "planned", 147456, []string{"no window fits"}},
		{"trained max below 4096", short, 8 * gib, 0, 2048, "planned", 147456, nil},
		{"size estimated from parameters", noSize, 8 * gib, 0, 12288, "planned", 147456, []string{"estimated"}},
		{"different key and value sizes", mla, 8 * gib, 0, 24576, "planned", 27 * 16 * (192 + 128) * 2, []string{"192 key + 128 value"}},
		{"unknown architecture", unknown, 8 * gib, 0, 4096, "fallback", 0, []string{"no block_count", "conservative 8k window, capped at the trained 4096"}},
		{"unknown architecture and trained max", unknownNoMax, 8 * gib, 0, 8192, "fallback", 0, []string{"trained context unknown", "conservative 8k window (8192 tokens)"}},
		{"override that fits", qwen3, 8 * gib, 8192, 8192, "--ctx", 147456, []string{"--ctx 8192 overrides the plan", "which fits"}},
		{"override that does not fit", qwen3, 8 * gib, 32768, 32768, "--ctx", 147456, []string{"does NOT fit"}},
		{"override above the trained max is clamped", qwen3, 32 * gib, 65536, 40960, "--ctx", 147456, []string{"--ctx 65536 is above the trained context: using 40960"}},
		{"override with unknown architecture", unknown, 8 * gib, 3000, 3000, "--ctx", 0, []string{"--ctx 3000 overrides the plan"}},
		// One layer in four attends: 8 × 4 KV heads × (256+256) × 2 = 32 KiB
		// a token, not the 128 KiB of 32 attending layers; the recurrent
		// state is fixed.
		// On 8 GiB next to 7.3 GiB of weights: 16k fits (562 MiB), where
		// 32 attending layers would have allowed only 4k.
		{"qwen3.5 hybrid", qwen35, 8 * gib, 0, 16384, "planned", 32768,
			[]string{"2 (K,V) × 8 of 32 layers × 4 KV heads × 256 head dim", "per-layer attention.head_count_kv", "= 32 KiB", "24 recurrent layers keep a fixed state"}},
		{"qwen3.5 hybrid, interval only", qwen35Interval, 8 * gib, 0, 16384, "planned", 32768,
			[]string{"full_attention_interval 4: one layer in 4 has attention"}},
		// gemma3: 5 of 34 layers global (20 KiB a token), 29 keep 1024 tokens.
		{"gemma3 sliding window", gemma3, 8 * gib, 0, 32768, "planned", 5 * 4 * 512 * 2,
			[]string{"5 of 34 layers", "assumed in 5 of every 6 layers", "29 sliding-window layers"}},
		{"sliding window of unknown layers", slidingUnknown, 8 * gib, 0, 12288, "planned", 147456,
			[]string{"which layers use it is unknown: all counted as full attention"}},
		{"override with unknown architecture, clamped", unknown, 8 * gib, 6000, 4096, "--ctx", 0, []string{"--ctx 6000 (lowered to 4096) overrides the plan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ollama.PlanContext(tt.info, ollama.Memory{VRAM: tt.vram}, tt.override)
			text := strings.Join(p.Explanation, "\n")
			if p.NumCtx != tt.wantCtx || p.Source != tt.wantSource || p.KVBytesPerToken != tt.wantKV {
				t.Errorf("got num_ctx %d (%s), %d B/token; want %d (%s), %d B/token\n%s",
					p.NumCtx, p.Source, p.KVBytesPerToken, tt.wantCtx, tt.wantSource, tt.wantKV, text)
			}
			for _, w := range tt.wantLines {
				if !strings.Contains(text, w) {
					t.Errorf("explanation lacks %q:\n%s", w, text)
				}
			}
			for _, c := range p.Candidates {
				if tt.info.ContextLength > 0 && c.NumCtx > tt.info.ContextLength {
					t.Errorf("candidate %d above the trained maximum", c.NumCtx)
				}
				// Sliding windows and recurrent state add to what the
				// attending layers cost a token, never take from it.
				exact := tt.info.SlidingWindow == 0 && tt.info.FullAttentionInterval == 0
				if kv := p.KVBytesPerToken * int64(c.NumCtx); (exact && c.KVBytes != kv) || c.KVBytes < kv || c.Fits != (c.KVBytes <= p.VRAMBytes-p.WeightsBytes) {
					t.Errorf("candidate %+v disagrees with the arithmetic", c)
				}
			}
		})
	}
}

// TestPlanTinyCapture plans for the model of the real /api/show capture,
// read through Show: its head size comes from embedding_length/head_count.
func TestPlanTinyCapture(t *testing.T) {
	body, err := os.ReadFile("testdata/show-tiny-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := ollama.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Show(t.Context(), "tiny-tools")
	if err != nil {
		t.Fatal(err)
	}
	info.SizeBytes = 1751786 // from the /api/tags capture
	p := ollama.PlanContext(info, ollama.Memory{VRAM: 8 * gib}, 0)
	// 2 × 1 layer × 2 KV heads × (8/2) head dim × 2 bytes = 32 B a token;
	// the trained 4096 caps the window.
	if p.KVBytesPerToken != 32 || p.NumCtx != 4096 || p.Source != "planned" || len(p.Candidates) != 1 {
		t.Errorf("plan %+v", p)
	}
	if !strings.Contains(strings.Join(p.Explanation, "\n"), "embedding_length/head_count") {
		t.Errorf("explanation does not say where the head size came from:\n%s", strings.Join(p.Explanation, "\n"))
	}
}
