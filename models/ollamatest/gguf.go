package ollamatest

import (
	"bytes"
	"fmt"
	"os"

	"github.com/ollama/ollama/fs/ggml"
)

// MoEFile is the shape of a mixture-of-experts GGUF file WriteMoEGGUF
// writes: Layers blocks, each with an attention matrix, a router and
// Experts routed experts of Width over Hidden dims, Used of them working
// on each token; F16 zeros throughout.
type MoEFile struct {
	Layers, Hidden, Width, Experts, Used int
}

// WriteMoEGGUF writes a qwen3moe GGUF file of shape f to path with
// Ollama's own GGUF writer: metadata and tensors a reader of GGUF files
// (ollama.ReadGGUF) sizes as it would a real model's. Its routed experts
// take 3 × Hidden × Width × Experts × 2 bytes a layer.
func WriteMoEGGUF(path string, f MoEFile) error {
	kv := ggml.KV{
		"general.architecture": "qwen3moe", "general.file_type": uint32(1),
		"qwen3moe.block_count": uint32(f.Layers), "qwen3moe.context_length": uint32(32768),
		"qwen3moe.embedding_length": uint32(f.Hidden), "qwen3moe.attention.head_count": uint32(2),
		"qwen3moe.attention.head_count_kv": uint32(1), "qwen3moe.attention.key_length": uint32(4),
		"qwen3moe.attention.value_length": uint32(4),
		"qwen3moe.expert_count":           uint32(f.Experts), "qwen3moe.expert_used_count": uint32(f.Used),
		"qwen3moe.expert_feed_forward_length": uint32(f.Width),
		"tokenizer.ggml.tokens":               make([]string, 2000),
	}
	var ts []*ggml.Tensor
	add := func(name string, shape ...uint64) {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		ts = append(ts, &ggml.Tensor{Name: name, Kind: 1, Shape: shape, WriterTo: bytes.NewReader(make([]byte, 2*n))})
	}
	h, w, e := uint64(f.Hidden), uint64(f.Width), uint64(f.Experts)
	add("token_embd.weight", h, 16)
	for i := range f.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		add(p+"attn_q.weight", h, h)
		add(p+"ffn_gate_inp.weight", h, e)
		add(p+"ffn_gate_exps.weight", h, w, e)
		add(p+"ffn_up_exps.weight", h, w, e)
		add(p+"ffn_down_exps.weight", w, h, e)
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := ggml.WriteGGUF(out, kv, ts); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
