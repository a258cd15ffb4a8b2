package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Model is an installed model of the fake server. Zero numbers are left out
// of /api/show's model_info, as for a model whose GGUF lacks them.
type Model struct {
	// Name as `ollama list` shows it; "tiny" is stored as "tiny:latest".
	Name          string
	Family        string
	Families      []string // default: [Family]
	ParameterSize string   // "8.2B"
	Quantization  string   // "Q4_K_M"
	SizeBytes     int64    // on disk, as /api/tags reports it
	// Capabilities as /api/show lists them; default ["completion"]. They
	// decide the server's answers: tools to a model without "tools" and
	// think:true to one without "thinking" are refused with the real 400s.
	Capabilities []string

	// Architecture numbers, published in model_info as "<Arch>.…".
	Arch            string
	ParameterCount  int64
	ContextLength   int // trained maximum; a larger num_ctx is served capped to it
	BlockCount      int
	HeadCount       int
	HeadCountKV     int
	KeyLength       int
	ValueLength     int
	EmbeddingLength int
	// ModelInfo holds extra model_info keys, applied last so that they may
	// also replace a standard key (a per-layer head_count_kv array, say).
	ModelInfo map[string]any
	// Tensors is the tensor list /api/show sends (Ollama v0.17 sends it
	// whether or not the request is verbose).
	Tensors []api.Tensor

	// Parameters is the Modelfile's PARAMETER text, one "key value" a line,
	// e.g. "num_ctx 8192". A num_ctx here is the default window.
	Parameters string
	Template   string
	// EmbedDims is the length of /api/embed vectors; 0 means the model
	// cannot embed (HTTP 501, as Ollama's new engine answers).
	EmbedDims int

	Digest     string    // default: derived from Name
	ModifiedAt time.Time // default: fixed, earlier for models added later
}

// capabilities returns the declared capabilities or the server's default.
func (m Model) capabilities() []string {
	if len(m.Capabilities) == 0 {
		return []string{"completion"}
	}
	return m.Capabilities
}

func (m Model) has(c string) bool {
	for _, x := range m.capabilities() {
		if x == c {
			return true
		}
	}
	return false
}

func (m Model) details() api.ModelDetails {
	families := m.Families
	if families == nil && m.Family != "" {
		families = []string{m.Family}
	}
	return api.ModelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          families,
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.Quantization,
	}
}

// params returns the Modelfile parameters as key/value pairs, in order.
func (m Model) params() [][2]string {
	var out [][2]string
	for line := range strings.Lines(m.Parameters) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok {
			out = append(out, [2]string{k, strings.TrimSpace(v)})
		}
	}
	return out
}

// normalize fills the defaults AddModel promises.
func (m Model) normalize(index int) Model {
	m.Name = shortName(m.Name)
	if m.Digest == "" {
		sum := sha256.Sum256([]byte(m.Name))
		m.Digest = hex.EncodeToString(sum[:])
	}
	if m.ModifiedAt.IsZero() {
		m.ModifiedAt = baseTime.Add(-time.Duration(index) * time.Minute)
	}
	return m
}

var baseTime = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)

// shortName is the form /api/tags shows: "tiny" → "tiny:latest",
// "registry.ollama.ai/library/qwen3:8b" → "qwen3:8b".
func shortName(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	name = strings.TrimPrefix(name, "registry.ollama.ai/")
	name = strings.TrimPrefix(name, "library/")
	last := name[strings.LastIndex(name, "/")+1:]
	if !strings.Contains(last, ":") {
		name += ":latest"
	}
	return name
}

// fullName is the form the server's capability errors use:
// "tiny" → "registry.ollama.ai/library/tiny:latest".
func fullName(name string) string {
	s := shortName(name)
	switch strings.Count(s, "/") {
	case 0:
		return "registry.ollama.ai/library/" + s
	case 1:
		return "registry.ollama.ai/" + s
	}
	return s
}

// chatMLTemplate is a ChatML template that renders tools, like the one of
// tiny-tools in the wire captures.
const chatMLTemplate = "{{- if .System }}<|im_start|>system\n{{ .System }}{{ if .Tools }}\n# Tools\n<tools>\n{{- range .Tools }}\n{\"type\": \"function\", \"function\": {{ .Function }}}\n{{- end }}\n</tools>\nFor each function call, return a json object within <tool_call></tool_call> tags.{{ end }}<|im_end|>\n{{ end }}\n{{- range $i, $_ := .Messages }}\n{{- if eq .Role \"user\" }}<|im_start|>user\n{{ .Content }}<|im_end|>\n{{ else if eq .Role \"assistant\" }}<|im_start|>assistant\n{{ if .Content }}{{ .Content }}{{ else if .ToolCalls }}<tool_call>\n{{ range .ToolCalls }}{\"name\": \"{{ .Function.Name }}\", \"arguments\": {{ .Function.Arguments }}}\n{{ end }}</tool_call>{{ end }}<|im_end|>\n{{ else if eq .Role \"tool\" }}<|im_start|>user\n<tool_response>\n{{ .Content }}\n</tool_response><|im_end|>\n{{ end }}\n{{- end }}<|im_start|>assistant\n"

// tinyInfo is the model_info of the captured tiny models beyond the
// numbers Model has fields for.
func tinyInfo() map[string]any {
	return map[string]any{
		"general.file_type":                      1,
		"llama.attention.layer_norm_rms_epsilon": 1e-05,
		"llama.feed_forward_length":              32,
		"llama.rope.dimension_count":             4,
	}
}

// TinyTools is the "tiny-tools" model of shared/ollama-wire: 513K random
// weights with a ChatML template that references .Tools.
func TinyTools() Model {
	return Model{
		Name: "tiny-tools:latest", Family: "llama", ParameterSize: "513K", Quantization: "F16",
		SizeBytes:    1751786,
		Capabilities: []string{"completion", "tools"},
		Arch:         "llama", ParameterCount: 513048, ContextLength: 4096, BlockCount: 1,
		HeadCount: 2, HeadCountKV: 2, EmbeddingLength: 8,
		ModelInfo:  tinyInfo(),
		Parameters: "num_predict 24\nseed 42",
		Template:   chatMLTemplate,
		EmbedDims:  8,
		Digest:     "b07008c64b8d0acf0eb7fcfd95f31256b5fdbfd65eddc559c3084b2d21c20c22",
		ModifiedAt: time.Date(2026, 11, 22, 1, 48, 2, 111138575, time.UTC),
	}
}

// Tiny is the "tiny" model of shared/ollama-wire: the same weights with a
// plain template, so it has no tools and no thinking capability.
func Tiny() Model {
	m := TinyTools()
	m.Name = "tiny:latest"
	m.SizeBytes = 1750925
	m.Capabilities = []string{"completion"}
	m.Template = "{{ .Prompt }}"
	m.Digest = "a738290f294c8a9dff093f5560be90a5570bbb947b30edefe9ac8c31dcfbd96c"
	m.ModifiedAt = time.Date(2026, 11, 22, 1, 47, 50, 653075937, time.UTC)
	return m
}

// Qwen3 is shaped like "qwen3:8b": tools and thinking, 36 layers, 8 KV
// heads of 128 dims, trained context 40960, 5.2 GB of Q4_K_M weights.
func Qwen3() Model {
	return Model{
		Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M",
		SizeBytes:    5225387923,
		Capabilities: []string{"completion", "tools", "thinking"},
		Arch:         "qwen3", ParameterCount: 8190735360, ContextLength: 40960, BlockCount: 36,
		HeadCount: 32, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 4096,
		Parameters: "repeat_penalty 1\nstop \"<|im_start|>\"\nstop \"<|im_end|>\"\ntemperature 0.6\ntop_k 20\ntop_p 0.95",
		Template:   "{{- if .Messages }}" + chatMLTemplate + "{{ if .Think }}<think>\n{{ end }}{{ end }}",
	}
}

// Llama32 is shaped like "llama3.2:3b": tools but no thinking, 28 layers,
// 8 KV heads of 128 dims, trained context 131072, 2.0 GB of weights.
func Llama32() Model {
	return Model{
		Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Quantization: "Q4_K_M",
		SizeBytes:    2019393189,
		Capabilities: []string{"completion", "tools"},
		Arch:         "llama", ParameterCount: 3212749888, ContextLength: 131072, BlockCount: 28,
		HeadCount: 24, HeadCountKV: 8, KeyLength: 128, ValueLength: 128, EmbeddingLength: 3072,
		Parameters: "stop \"<|start_header_id|>\"\nstop \"<|end_header_id|>\"\nstop \"<|eot_id|>\"",
		Template:   "<|start_header_id|>system<|end_header_id|>\n{{ if .Tools }}You have access to the following functions.{{ range .Tools }}\n{{ . }}{{ end }}{{ end }}<|eot_id|>{{ range .Messages }}<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n{{ .Content }}<|eot_id|>{{ end }}<|start_header_id|>assistant<|end_header_id|>\n\n",
	}
}

// Qwen35 is shaped like the qwen3.5 family's hybrids: 32 layers of which
// one in four (full_attention_interval 4) has attention, with 4 KV heads of
// 256 dims, the others recurrent (ssm.*). Its per-layer head_count_kv has
// more than five elements, so /api/show sends it only when verbose.
func Qwen35() Model {
	kv := make([]int, 32)
	for i := range kv {
		if (i+1)%4 == 0 {
			kv[i] = 4
		}
	}
	return Model{
		Name: "qwen3.5:9b", Family: "qwen35", ParameterSize: "9.7B", Quantization: "Q4_K_M",
		SizeBytes:    6_594_000_000,
		Capabilities: []string{"completion", "tools", "thinking"},
		Arch:         "qwen35", ParameterCount: 9_650_000_000, ContextLength: 262144, BlockCount: 32,
		HeadCount: 16, KeyLength: 256, ValueLength: 256, EmbeddingLength: 4096,
		ModelInfo: map[string]any{
			"qwen35.attention.head_count_kv": kv, "qwen35.full_attention_interval": 4,
			"qwen35.ssm.conv_kernel": 4, "qwen35.ssm.inner_size": 4096, "qwen35.ssm.state_size": 128,
			"qwen35.ssm.group_count": 16, "qwen35.ssm.time_step_rank": 32,
		},
		Template: chatMLTemplate,
	}
}

// Qwen36MoE is shaped like "qwen3.6:35b-a3b", the mixture of experts a
// coding agent on an 8 GB laptop does best with: 40 layers, one in four
// with full attention (2 KV heads of 256 dims) and the others recurrent,
// 256 routed experts a layer of which 8 work on each token, and one shared
// expert. Q4_K_M: its 20.9 GB of routed experts are most of its 22.5 GB.
// /api/show lists its tensors, as Ollama v0.17 does.
func Qwen36MoE() Model {
	const layers = 40
	kv := make([]int, layers)
	for i := range kv {
		if (i+1)%4 == 0 {
			kv[i] = 2
		}
	}
	return Model{
		Name: "qwen3.6:35b-a3b", Family: "qwen35moe", ParameterSize: "34.7B", Quantization: "Q4_K_M",
		SizeBytes:    22_497_211_392,
		Capabilities: []string{"completion", "tools", "thinking"},
		Arch:         "qwen35moe", ParameterCount: 34_660_610_688, ContextLength: 262144, BlockCount: layers,
		HeadCount: 16, KeyLength: 256, ValueLength: 256, EmbeddingLength: 2048,
		ModelInfo: map[string]any{
			"qwen35moe.attention.head_count_kv": kv, "qwen35moe.full_attention_interval": 4,
			"qwen35moe.ssm.conv_kernel": 4, "qwen35moe.ssm.inner_size": 4096, "qwen35moe.ssm.state_size": 128,
			"qwen35moe.ssm.group_count": 16, "qwen35moe.ssm.time_step_rank": 32,
			"qwen35moe.expert_count": 256, "qwen35moe.expert_used_count": 8,
			"qwen35moe.expert_feed_forward_length": 512, "qwen35moe.expert_shared_feed_forward_length": 512,
		},
		Tensors:  qwen35MoETensors(layers),
		Template: chatMLTemplate,
	}
}

// qwen35MoETensors is the tensor list of Qwen36MoE, as a Q4_K_M file has
// it: Q4_K matrices, Q6_K for the output, values and down projections.
func qwen35MoETensors(layers int) []api.Tensor {
	var ts []api.Tensor
	add := func(name, typ string, shape ...uint64) {
		ts = append(ts, api.Tensor{Name: name, Type: typ, Shape: shape})
	}
	add("token_embd.weight", "Q4_K", 2048, 248320)
	add("output.weight", "Q6_K", 2048, 248320)
	add("output_norm.weight", "F32", 2048)
	for i := range layers {
		p := fmt.Sprintf("blk.%d.", i)
		add(p+"attn_norm.weight", "F32", 2048)
		add(p+"post_attention_norm.weight", "F32", 2048)
		if (i+1)%4 == 0 {
			add(p+"attn_q.weight", "Q4_K", 2048, 8192)
			add(p+"attn_k.weight", "Q4_K", 2048, 512)
			add(p+"attn_v.weight", "Q6_K", 2048, 512)
			add(p+"attn_output.weight", "Q4_K", 4096, 2048)
			add(p+"attn_q_norm.weight", "F32", 256)
			add(p+"attn_k_norm.weight", "F32", 256)
		} else {
			add(p+"attn_qkv.weight", "Q4_K", 2048, 8192)
			add(p+"attn_gate.weight", "Q4_K", 2048, 4096)
			add(p+"ssm_beta.weight", "Q8_0", 2048, 32)
			add(p+"ssm_alpha.weight", "Q8_0", 2048, 32)
			add(p+"ssm_conv1d.weight", "F32", 4, 8192)
			add(p+"ssm_dt.bias", "F32", 32)
			add(p+"ssm_a", "F32", 32)
			add(p+"ssm_norm.weight", "F32", 128)
			add(p+"ssm_out.weight", "Q4_K", 4096, 2048)
		}
		add(p+"ffn_gate_inp.weight", "F32", 2048, 256)
		add(p+"ffn_gate_exps.weight", "Q4_K", 2048, 512, 256)
		add(p+"ffn_up_exps.weight", "Q4_K", 2048, 512, 256)
		add(p+"ffn_down_exps.weight", "Q6_K", 512, 2048, 256)
		add(p+"ffn_gate_inp_shexp.weight", "F32", 2048)
		add(p+"ffn_gate_shexp.weight", "Q4_K", 2048, 512)
		add(p+"ffn_up_shexp.weight", "Q4_K", 2048, 512)
		add(p+"ffn_down_shexp.weight", "Q6_K", 512, 2048)
	}
	return ts
}

// Gemma3 is shaped like "gemma3:4b": 34 layers with 4 KV heads of 256
// dims; five layers in six keep only a 1024-token sliding window.
func Gemma3() Model {
	return Model{
		Name: "gemma3:4b", Family: "gemma3", ParameterSize: "4.3B", Quantization: "Q4_K_M",
		SizeBytes:    3_338_801_804,
		Capabilities: []string{"completion", "vision"},
		Arch:         "gemma3", ParameterCount: 4_300_079_472, ContextLength: 131072, BlockCount: 34,
		HeadCount: 8, HeadCountKV: 4, KeyLength: 256, ValueLength: 256, EmbeddingLength: 2560,
		ModelInfo: map[string]any{"gemma3.attention.sliding_window": 1024},
		Template:  "{{ range .Messages }}<start_of_turn>{{ .Role }}\n{{ .Content }}<end_of_turn>\n{{ end }}<start_of_turn>model\n",
	}
}

// NomicEmbed is shaped like "nomic-embed-text:latest": an embedding model
// with 768-dimensional vectors that cannot chat.
func NomicEmbed() Model {
	return Model{
		Name: "nomic-embed-text:latest", Family: "nomic-bert", ParameterSize: "137M", Quantization: "F16",
		SizeBytes:    274302450,
		Capabilities: []string{"embedding"},
		Arch:         "nomic-bert", ParameterCount: 136727040, ContextLength: 2048, BlockCount: 12,
		HeadCount: 12, EmbeddingLength: 768,
		Parameters: "num_ctx 8192",
		EmbedDims:  768,
	}
}

// Preset returns a ready-made model by a short alias: "tiny", "tiny-tools",
// "qwen3", "llama3.2", "nomic-embed", "qwen3.5", "gemma3" or "qwen3.6" (a
// mixture of experts, also "moe").
func Preset(alias string) (Model, error) {
	switch strings.ToLower(alias) {
	case "tiny":
		return Tiny(), nil
	case "tiny-tools":
		return TinyTools(), nil
	case "qwen3", "qwen3:8b":
		return Qwen3(), nil
	case "llama3.2", "llama3.2:3b", "llama32":
		return Llama32(), nil
	case "nomic-embed", "nomic-embed-text":
		return NomicEmbed(), nil
	case "qwen3.5", "qwen35", "qwen3.5:9b":
		return Qwen35(), nil
	case "gemma3", "gemma3:4b":
		return Gemma3(), nil
	case "qwen3.6", "qwen3.6:35b-a3b", "moe":
		return Qwen36MoE(), nil
	}
	return Model{}, fmt.Errorf("unknown model preset %q (have tiny, tiny-tools, qwen3, llama3.2, nomic-embed, qwen3.5, gemma3, qwen3.6)", alias)
}
