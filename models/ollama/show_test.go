package ollama_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestShow(t *testing.T) {
	perLayer := ollamatest.Qwen3()
	perLayer.Name = "per-layer:latest"
	perLayer.ModelInfo = map[string]any{"qwen3.attention.head_count_kv": []int{8, 4, 8, 2}}
	nulled := ollamatest.Qwen3()
	nulled.Name = "nulled:latest"
	nulled.ModelInfo = map[string]any{"qwen3.attention.head_count_kv": nil}
	windowed := ollamatest.Llama32()
	windowed.Parameters = "num_ctx 16384\nstop \"<|eot_id|>\""

	tests := []struct {
		name string
		want models.ModelInfo
	}{
		{"qwen3:8b", models.ModelInfo{
			Name: "qwen3:8b", Family: "qwen3", Families: []string{"qwen3"}, ParameterSize: "8.2B", Quantization: "Q4_K_M",
			Capabilities: []models.Capability{models.CapCompletion, models.CapTools, models.CapThinking},
			Architecture: "qwen3", ParameterCount: 8190735360, ContextLength: 40960, BlockCount: 36,
			HeadCount: 32, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 4096,
		}},
		{"tiny-tools", models.ModelInfo{ // the captured model: no key_length, head size from embedding/heads
			Name: "tiny-tools", Family: "llama", Families: []string{"llama"}, ParameterSize: "513K", Quantization: "F16",
			Capabilities: []models.Capability{models.CapCompletion, models.CapTools},
			Architecture: "llama", ParameterCount: 513048, ContextLength: 4096, BlockCount: 1,
			HeadCount: 2, HeadCountKV: 2, EmbeddingLength: 8,
		}},
		{"per-layer", models.ModelInfo{ // the largest per-layer KV head count
			Name: "per-layer", Family: "qwen3", Families: []string{"qwen3"}, ParameterSize: "8.2B", Quantization: "Q4_K_M",
			Capabilities: []models.Capability{models.CapCompletion, models.CapTools, models.CapThinking},
			Architecture: "qwen3", ParameterCount: 8190735360, ContextLength: 40960, BlockCount: 36,
			HeadCount: 32, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 4096,
			HeadCountKVPerLayer: []int{8, 4, 8, 2},
		}},
		{"qwen3.5:9b", models.ModelInfo{ // head_count_kv elided unless verbose: Show asks again
			Name: "qwen3.5:9b", Family: "qwen35", Families: []string{"qwen35"}, ParameterSize: "9.7B", Quantization: "Q4_K_M",
			Capabilities: []models.Capability{models.CapCompletion, models.CapTools, models.CapThinking},
			Architecture: "qwen35", ParameterCount: 9_650_000_000, ContextLength: 262144, BlockCount: 32,
			HeadCount: 16, HeadCountKV: 4, KeyLength: 256, ValueLength: 256, EmbeddingLength: 4096,
			HeadCountKVPerLayer:   []int{0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4},
			FullAttentionInterval: 4, SSMConvKernel: 4, SSMInnerSize: 4096, SSMStateSize: 128, SSMGroupCount: 16,
		}},
		{"gemma3:4b", models.ModelInfo{
			Name: "gemma3:4b", Family: "gemma3", Families: []string{"gemma3"}, ParameterSize: "4.3B", Quantization: "Q4_K_M",
			Capabilities: []models.Capability{models.CapCompletion, models.CapVision},
			Architecture: "gemma3", ParameterCount: 4_300_079_472, ContextLength: 131072, BlockCount: 34,
			HeadCount: 8, HeadCountKV: 4, KeyLength: 256, ValueLength: 256, EmbeddingLength: 2560, SlidingWindow: 1024,
		}},
		{"nulled", models.ModelInfo{ // arrays are null when /api/show is not verbose
			Name: "nulled", Family: "qwen3", Families: []string{"qwen3"}, ParameterSize: "8.2B", Quantization: "Q4_K_M",
			Capabilities: []models.Capability{models.CapCompletion, models.CapTools, models.CapThinking},
			Architecture: "qwen3", ParameterCount: 8190735360, ContextLength: 40960, BlockCount: 36,
			HeadCount: 32, HeadCountKV: 0, KeyLength: 128, ValueLength: 128, EmbeddingLength: 4096,
		}},
		{"llama3.2:3b", models.ModelInfo{
			Name: "llama3.2:3b", Family: "llama", Families: []string{"llama"}, ParameterSize: "3.2B", Quantization: "Q4_K_M",
			Capabilities: []models.Capability{models.CapCompletion, models.CapTools},
			Architecture: "llama", ParameterCount: 3212749888, ContextLength: 131072, BlockCount: 28,
			HeadCount: 24, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 3072,
			ModelfileNumCtx: 16384,
		}},
	}
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.TinyTools(), perLayer, nulled, windowed, ollamatest.Qwen35(), ollamatest.Gemma3()))
	c := newClient(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Show(t.Context(), tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if got.Template == "" {
				t.Error("no template")
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(models.ModelInfo{}, "Template", "GGUFPath")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := c.Show(t.Context(), "nope"); !errors.Is(err, models.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama show nope: ") {
		t.Errorf("show unknown model: %v", err)
	}
}

func TestList(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny(), ollamatest.TinyTools()))
	got, err := newClient(t, s).List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []models.ModelInfo{
		{Name: "tiny-tools:latest", Family: "llama", Families: []string{"llama"}, ParameterSize: "513K", Quantization: "F16", SizeBytes: 1751786},
		{Name: "tiny:latest", Family: "llama", Families: []string{"llama"}, ParameterSize: "513K", Quantization: "F16", SizeBytes: 1750925},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRunning(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	c := newClient(t, s)
	if got, err := c.Running(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("before any chat: %+v, %v", got, err)
	}
	s.Script(ollamatest.Reply{Content: "ok"})
	if _, err := c.Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: userMsg("hi"), Options: models.Options{NumCtx: 12288}}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := c.Running(t.Context())
	if err != nil || len(got) != 1 {
		t.Fatalf("running %+v, %v", got, err)
	}
	r := got[0]
	if r.Name != "qwen3:8b" || r.ContextLength != 12288 || r.VRAMBytes <= ollamatest.Qwen3().SizeBytes || r.ExpiresAt.IsZero() {
		t.Errorf("running %+v, want qwen3:8b served with 12288 tokens", r)
	}
}

func TestEmbed(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.NomicEmbed(), ollamatest.Qwen3()))
	c := newClient(t, s)
	vecs, err := c.Embed(t.Context(), "nomic-embed-text", []string{"func main()", "package main", "type Config struct"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 {
		t.Fatalf("%d vectors", len(vecs))
	}
	for i, v := range vecs {
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if len(v) != 768 || math.Abs(sum-1) > 1e-4 {
			t.Errorf("vector %d: %d dims, norm² %v", i, len(v), sum)
		}
	}
	if vecs, err := c.Embed(t.Context(), "nomic-embed-text", nil); err != nil || vecs != nil {
		t.Errorf("no inputs: %v, %v", vecs, err)
	}
	_, err = c.Embed(t.Context(), "qwen3:8b", []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "does not support embeddings") {
		t.Errorf("embed with a chat model: %v", err)
	}
	if _, err := c.Embed(t.Context(), "nope", []string{"x"}); !errors.Is(err, models.ErrModelNotFound) {
		t.Errorf("embed with an unknown model: %v", err)
	}
}
