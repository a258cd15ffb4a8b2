package ollama

import (
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"

	"github.com/ternhq/tern/models"
)

// A mixture-of-experts model keeps most of its weights in its routed
// experts, of which only a few work on each token. GGUF names them
// blk.N.ffn_gate_exps, ffn_up_exps and ffn_down_exps (ffn_gate_up_exps
// where gate and up are one tensor, ffn_*_chexps for chunked ones); the
// shared experts, which work on every token, are ffn_*_shexp. llama.cpp's
// --n-cpu-moe N keeps the routed experts of layers 0..N-1 in system RAM
// (the pattern blk\.N\.ffn_(up|down|gate)_(ch|)exps), and everything else
// on the GPU. readTensors sizes each part from /api/show's tensor list.

// readTensors fills info's TensorBytes, ExpertBytes and SharedExpertBytes
// from a tensor list. A tensor of a type Ollama does not name counts at the
// file's quantization (bitsPerWeight).
func readTensors(info *models.ModelInfo, tensors []api.Tensor) {
	if len(tensors) == 0 {
		return
	}
	var experts []int64
	var total, shared int64
	for _, t := range tensors {
		n := tensorBytes(t, info.Quantization)
		total += n
		layer, part, ok := blockTensor(t.Name)
		switch {
		case !ok:
		case routedExperts(part):
			for len(experts) <= layer {
				experts = append(experts, 0)
			}
			experts[layer] += n
		case strings.HasPrefix(part, "ffn_") && strings.HasSuffix(part, "_shexp"):
			shared += n
		}
	}
	info.TensorBytes, info.SharedExpertBytes = total, shared
	if len(experts) > 0 {
		for len(experts) < info.BlockCount {
			experts = append(experts, 0) // trailing dense layers
		}
		info.ExpertBytes = experts
	}
}

// blockTensor splits "blk.12.ffn_up_exps.weight" into 12 and
// "ffn_up_exps"; ok is false for tensors outside the blocks.
func blockTensor(name string) (layer int, part string, ok bool) {
	rest, found := strings.CutPrefix(name, "blk.")
	if !found {
		return 0, "", false
	}
	num, rest, found := strings.Cut(rest, ".")
	if !found {
		return 0, "", false
	}
	layer, err := strconv.Atoi(num)
	if err != nil || layer < 0 {
		return 0, "", false
	}
	part, _, _ = strings.Cut(rest, ".")
	return layer, part, true
}

// routedExperts reports whether a block tensor part holds routed experts:
// ffn_…_exps or ffn_…_chexps, as llama.cpp's expert-offload pattern reads
// them (never the shared ffn_…_shexp, nor the router ffn_gate_inp).
func routedExperts(part string) bool {
	return strings.HasPrefix(part, "ffn_") && (strings.HasSuffix(part, "_exps") || strings.HasSuffix(part, "_chexps"))
}

// tensorBytes is a tensor's size in the file: its elements at its type's
// block size, or at the file's average bits per weight when Ollama does not
// know the type.
func tensorBytes(t api.Tensor, quant string) int64 {
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	if tt, err := ggml.ParseTensorType(t.Type); err == nil && tt.BlockSize() > 0 && n%tt.BlockSize() == 0 {
		return int64(tt.RowSize(n))
	}
	return int64(float64(n) * bitsPerWeight(quant) / 8)
}

// modelfileFrom is the path of the Modelfile's FROM line when it names a
// file ("/…/blobs/sha256-…"); "" for a model name or none.
func modelfileFrom(modelfile string) string {
	for line := range strings.Lines(modelfile) {
		if from, ok := strings.CutPrefix(strings.TrimSpace(line), "FROM "); ok {
			from = strings.TrimSpace(from)
			if strings.HasPrefix(from, "/") || (len(from) > 2 && from[1] == ':' && (from[2] == '\\' || from[2] == '/')) {
				return from
			}
		}
	}
	return ""
}

// paramValue finds key in /api/show's parameters text; ok is false when
// the Modelfile does not set it.
func paramValue(params, key string) (int, bool) {
	for line := range strings.Lines(params) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			if n, err := strconv.Atoi(f[1]); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}
