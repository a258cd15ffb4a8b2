package ollama

import (
	"context"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
)

// Show returns what /api/show knows about a model: capabilities, family,
// the Modelfile's num_ctx, and the architecture numbers the VRAM planner
// needs. Show does not report the size on disk; SizeBytes comes from List.
func (c *Client) Show(ctx context.Context, name string) (models.ModelInfo, error) {
	sr, err := c.show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return models.ModelInfo{}, err
	}
	info := models.ModelInfo{
		Name:          name,
		Family:        sr.Details.Family,
		Families:      sr.Details.Families,
		ParameterSize: sr.Details.ParameterSize,
		Quantization:  sr.Details.QuantizationLevel,
		Template:      sr.Template,
		GGUFPath:      modelfileFrom(sr.Modelfile),
	}
	info.ModelfileNumCtx, _ = paramValue(sr.Parameters, "num_ctx")
	if n, ok := paramValue(sr.Parameters, "num_gpu"); ok {
		info.ModelfileNumGPU = &n
	}
	for _, cap := range sr.Capabilities {
		info.Capabilities = append(info.Capabilities, models.Capability(cap))
	}

	mi := sr.ModelInfo
	readModel(&info, mi, sr.Tensors)
	if arch := info.Architecture; arch != "" {
		elidedLayers := elided(mi, arch+".attention.head_count_kv") || elided(mi, arch+".attention.sliding_window_pattern")
		if elidedLayers || (info.MoE() && len(sr.Tensors) == 0) {
			// /api/show empties arrays of more than five elements unless
			// asked to be verbose; the planner needs these per-layer ones,
			// and the tensor list of a mixture of experts (Ollama 0.17
			// sends it anyway; others only when verbose). The verbose
			// answer carries the whole vocabulary too, so it is asked for
			// only when needed.
			if vr, err := c.show(ctx, &api.ShowRequest{Model: name, Verbose: true}); err == nil {
				readLayers(&info, vr.ModelInfo)
				info.HeadCountKV = max(info.HeadCountKV, int(number(vr.ModelInfo[arch+".attention.head_count_kv"])))
				if info.TensorBytes == 0 {
					readTensors(&info, vr.Tensors)
				}
			}
		}
	}
	return info, nil
}

// show asks /api/show, within the contact timeout.
func (c *Client) show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error) {
	return question(ctx, c, "ollama show", req.Model, func(ctx context.Context) (*api.ShowResponse, error) {
		return c.api.Show(ctx, req)
	})
}

// readModel reads a model's GGUF metadata (model_info: "general.*" and
// "<arch>.*" keys, as /api/show sends them) and its tensor list into info.
func readModel(info *models.ModelInfo, mi map[string]any, tensors []api.Tensor) {
	arch, _ := mi["general.architecture"].(string)
	info.Architecture = arch
	info.ParameterCount = number(mi["general.parameter_count"])
	if arch == "" {
		return
	}
	key := func(k string) int { return int(number(mi[arch+"."+k])) }
	info.ContextLength = key("context_length")
	info.BlockCount = key("block_count")
	info.HeadCount = key("attention.head_count")
	info.HeadCountKV = key("attention.head_count_kv")
	info.KeyLength = key("attention.key_length")
	info.ValueLength = key("attention.value_length")
	info.EmbeddingLength = key("embedding_length")
	info.ExpertCount = key("expert_count")
	info.ExpertUsedCount = key("expert_used_count")
	info.ExpertSharedCount = key("expert_shared_count")
	info.ExpertFFLength = key("expert_feed_forward_length")
	readLayers(info, mi)
	readTensors(info, tensors)
}

// readLayers reads the metadata of layers that do not all cache every
// token: per-layer KV heads, the full-attention interval, sliding windows
// and recurrent state sizes.
func readLayers(info *models.ModelInfo, mi map[string]any) {
	arch := info.Architecture
	key := func(k string) int { return int(number(mi[arch+"."+k])) }
	if a, ok := mi[arch+".attention.head_count_kv"].([]any); ok && len(a) > 0 {
		info.HeadCountKVPerLayer = make([]int, len(a))
		for i, v := range a {
			info.HeadCountKVPerLayer[i] = int(number(v))
		}
	}
	if a, ok := mi[arch+".attention.sliding_window_pattern"].([]any); ok && len(a) > 0 {
		info.SlidingWindowPattern = make([]bool, len(a))
		for i, v := range a {
			info.SlidingWindowPattern[i], _ = v.(bool)
		}
	}
	info.FullAttentionInterval = key("full_attention_interval")
	info.SlidingWindow = key("attention.sliding_window")
	info.SSMConvKernel = key("ssm.conv_kernel")
	info.SSMInnerSize = key("ssm.inner_size")
	info.SSMStateSize = key("ssm.state_size")
	info.SSMGroupCount = key("ssm.group_count")
}

// elided reports whether model_info holds key as null (or an empty
// array): what Ollama v0.17.4's /api/show makes of an array of more than
// five elements when not asked to be verbose.
func elided(mi map[string]any, key string) bool {
	v, ok := mi[key]
	if !ok {
		return false
	}
	a, isArray := v.([]any)
	return v == nil || isArray && len(a) == 0
}

// List returns the installed models (/api/tags), with their size on disk.
func (c *Client) List(ctx context.Context) ([]models.ModelInfo, error) {
	lr, err := question(ctx, c, "ollama list", "", c.api.List)
	if err != nil {
		return nil, err
	}
	out := make([]models.ModelInfo, 0, len(lr.Models))
	for _, m := range lr.Models {
		out = append(out, models.ModelInfo{
			Name:          m.Name,
			Family:        m.Details.Family,
			Families:      m.Details.Families,
			ParameterSize: m.Details.ParameterSize,
			Quantization:  m.Details.QuantizationLevel,
			SizeBytes:     m.Size,
		})
	}
	return out, nil
}

// Running returns the models loaded in memory (/api/ps), with the context
// length each one is served with.
func (c *Client) Running(ctx context.Context) ([]models.RunningModel, error) {
	pr, err := question(ctx, c, "ollama ps", "", c.api.ListRunning)
	if err != nil {
		return nil, err
	}
	out := make([]models.RunningModel, 0, len(pr.Models))
	for _, m := range pr.Models {
		out = append(out, models.RunningModel{
			Name:          m.Name,
			SizeBytes:     m.Size,
			VRAMBytes:     m.SizeVRAM,
			ContextLength: m.ContextLength,
			ExpiresAt:     m.ExpiresAt,
		})
	}
	return out, nil
}

// Embed returns one unit-length vector per input, in order, from one
// /api/embed request. Callers split large batches themselves.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	er, err := c.api.Embed(ctx, &api.EmbedRequest{
		Model:     model,
		Input:     inputs,
		KeepAlive: &api.Duration{Duration: DefaultKeepAlive},
	})
	if err != nil {
		return nil, c.fail(ctx, "ollama embed", model, err)
	}
	if len(er.Embeddings) != len(inputs) {
		return nil, fmt.Errorf("ollama embed %s: %d vectors for %d inputs", model, len(er.Embeddings), len(inputs))
	}
	return er.Embeddings, nil
}

// number reads a numeric model_info value. JSON numbers arrive as float64;
// a per-layer array (head_count_kv on some architectures) counts as its
// largest element, which sizes the KV cache conservatively; null (arrays
// are nulled when /api/show is not verbose) and anything else count as 0.
func number(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	case int64:
		return n
	case []any:
		var largest int64
		for _, e := range n {
			largest = max(largest, number(e))
		}
		return largest
	}
	return 0
}
