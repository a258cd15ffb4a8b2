// Package models holds the vocabulary every other tern package speaks about
// language models: messages, tool calls, tool specifications, chat requests
// and replies, model metadata and the errors a model backend reports.
//
// It also holds what tern knows about how models misbehave: the tool-call
// repair pipeline (RepairReply), which recovers calls from whatever a
// model wrote, the model family profiles (ProfileFor), which installed
// model to use (ChooseModel) and how tools reach it (ChooseToolProtocol).
//
// It is the bottom of tern's import graph: it imports nothing internal, and
// it knows nothing about any particular backend. The Ollama adapter lives in
// models/ollama; a scripted fake server for tests lives in models/ollamatest.
package models

import (
	"encoding/json"
	"slices"
	"time"
)

// Role says who wrote a message.
type Role string

// The roles of a chat.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role     Role   `json:"role"`
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolName and ToolCallID identify the call a tool message answers.
	ToolName   string `json:"tool_name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Shown, on a user message whose Content wraps the user's words in
	// tern's own instructions (plan mode), is what the user is shown of
	// it: their words, or what they did ("(plan accepted: carry it
	// out)"). It never goes to the model; "" when Content is the user's.
	Shown string `json:"-"`
	// Model names the model that wrote an assistant message, which is
	// not always the session's (an escalation); it is never sent to a
	// model.
	Model string `json:"model,omitempty"`
}

// ToolCall is a request from the model to run a tool.
type ToolCall struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments is a JSON object. Its key order is kept as the model wrote
	// it, so that a conversation re-sent to the model renders byte-identically.
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON Schema object ({"type":"object","properties":…}).
	// Property order is significant: it is sent as written.
	Parameters json.RawMessage `json:"parameters"`
}

// Options are the generation settings of a request. Zero values mean "leave
// the server's default", except where a field says otherwise.
type Options struct {
	// NumCtx is the context window in tokens. tern always sets it, and keeps
	// it fixed for a session, because a change reloads the model.
	NumCtx int
	// NumPredict caps the reply length in tokens (0: no cap).
	NumPredict int
	// Temperature, when non-nil, overrides the model's default.
	Temperature *float64
	// Think turns a thinking-capable model's reasoning on ("true", or a level
	// such as "low"). Empty means off; tern sends the choice explicitly,
	// because Ollama turns thinking on when the field is absent.
	Think string
	// KeepAlive is how long the model stays loaded after the request.
	KeepAlive time.Duration
	// Stop lists stop sequences.
	Stop []string
}

// Request is one chat request.
type Request struct {
	Model    string
	Messages []Message
	// Tools are passed natively. Leave empty for models without the tools
	// capability (the text tool protocol describes tools in the prompt).
	Tools []ToolSpec
	// Format, when set, is a JSON schema the reply must match; Ollama
	// enforces it with a grammar while sampling (ConstrainedSchema).
	Format  json.RawMessage
	Options Options
}

// Delta is a piece of a streamed reply.
type Delta struct {
	Content  string
	Thinking string
}

// Metrics are the counts and timings a backend reports with a finished reply.
type Metrics struct {
	// PromptTokens is what the server evaluated, counted after any silent
	// truncation: a value well under the local estimate means the prompt
	// did not fit.
	PromptTokens int `json:"prompt_tokens"`
	// CachedTokens are the prompt tokens the server took from its prompt
	// cache instead of evaluating, when CacheReported says it told
	// (llama-server's cache_n, an OpenAI-compatible usage's cached_tokens;
	// Ollama does not).
	CachedTokens   int           `json:"cached_tokens,omitempty"`
	CacheReported  bool          `json:"cache_reported,omitempty"`
	EvalTokens     int           `json:"eval_tokens"`
	TotalDuration  time.Duration `json:"total_ns"`
	LoadDuration   time.Duration `json:"load_ns"`
	PromptDuration time.Duration `json:"prompt_ns"`
	EvalDuration   time.Duration `json:"eval_ns"`
}

// TokensPerSecond is the generation speed, or 0 when unknown.
func (m Metrics) TokensPerSecond() float64 {
	if m.EvalDuration <= 0 {
		return 0
	}
	return float64(m.EvalTokens) / m.EvalDuration.Seconds()
}

// Reply is a finished assistant reply.
type Reply struct {
	Message Message
	// DoneReason is the backend's reason for stopping: "stop", "length", …
	// or DoneRepetition.
	DoneReason string
	Metrics    Metrics
}

// DoneRepetition is the done reason of a reply the server cut off because
// the model kept producing the same token: Ollama ends such a stream with
// no final message and no error. The text that arrived is the model's.
const DoneRepetition = "repetition"

// Capability is something a model can do, as listed by Ollama's /api/show.
type Capability string

// Capabilities Ollama reports.
const (
	CapCompletion Capability = "completion"
	CapTools      Capability = "tools"
	CapThinking   Capability = "thinking"
	CapEmbedding  Capability = "embedding"
	CapVision     Capability = "vision"
	CapInsert     Capability = "insert"
)

// ModelInfo is what tern knows about one installed model.
type ModelInfo struct {
	Name          string       `json:"name"`
	Family        string       `json:"family"`
	Families      []string     `json:"families,omitempty"`
	ParameterSize string       `json:"parameter_size,omitempty"` // as reported, e.g. "8.2B"
	Quantization  string       `json:"quantization,omitempty"`   // e.g. "Q4_K_M"
	SizeBytes     int64        `json:"size_bytes,omitempty"`     // weights on disk
	Capabilities  []Capability `json:"capabilities,omitempty"`

	// Architecture numbers from the GGUF metadata; zero when unknown.
	Architecture    string `json:"architecture,omitempty"`
	ParameterCount  int64  `json:"parameter_count,omitempty"`
	ContextLength   int    `json:"context_length,omitempty"` // trained maximum, not the served window
	BlockCount      int    `json:"block_count,omitempty"`
	HeadCount       int    `json:"head_count,omitempty"`
	HeadCountKV     int    `json:"head_count_kv,omitempty"`
	KeyLength       int    `json:"key_length,omitempty"`
	ValueLength     int    `json:"value_length,omitempty"`
	EmbeddingLength int    `json:"embedding_length,omitempty"`
	// Layers that do not all cache every token: the KV heads of each layer
	// when the server lists them (0 for a recurrent layer), one layer in
	// FullAttentionInterval with full attention (qwen3.5's hybrids), and
	// SlidingWindow, the tokens a sliding-window layer keeps (gemma), with
	// SlidingWindowPattern marking those layers when the server lists them.
	HeadCountKVPerLayer   []int  `json:"head_count_kv_per_layer,omitempty"`
	FullAttentionInterval int    `json:"full_attention_interval,omitempty"`
	SlidingWindow         int    `json:"sliding_window,omitempty"`
	SlidingWindowPattern  []bool `json:"sliding_window_pattern,omitempty"`
	// The recurrent (state-space) layers' state size: ssm.conv_kernel,
	// inner_size, state_size and group_count.
	SSMConvKernel int `json:"ssm_conv_kernel,omitempty"`
	SSMInnerSize  int `json:"ssm_inner_size,omitempty"`
	SSMStateSize  int `json:"ssm_state_size,omitempty"`
	SSMGroupCount int `json:"ssm_group_count,omitempty"`

	// A mixture-of-experts model has ExpertCount routed experts in each
	// of its layers, of which ExpertUsedCount work on each token, and
	// ExpertSharedCount shared experts that work on every token (all 0 for
	// a dense model). ExpertFFLength is one routed expert's width
	// (expert_feed_forward_length).
	ExpertCount       int `json:"expert_count,omitempty"`
	ExpertUsedCount   int `json:"expert_used_count,omitempty"`
	ExpertSharedCount int `json:"expert_shared_count,omitempty"`
	ExpertFFLength    int `json:"expert_feed_forward_length,omitempty"`
	// From the server's list of tensors: TensorBytes is every weight
	// together, ExpertBytes[i] the routed experts of layer i
	// (blk.i.ffn_*_exps, the tensors llama.cpp's --n-cpu-moe keeps in
	// RAM) and SharedExpertBytes the shared experts (ffn_*_shexp), which
	// stay with the attention weights. All zero when no list was read.
	TensorBytes       int64   `json:"tensor_bytes,omitempty"`
	ExpertBytes       []int64 `json:"expert_bytes,omitempty"`
	SharedExpertBytes int64   `json:"shared_expert_bytes,omitempty"`
	// GGUFPath is the model's file on the server's machine, from the
	// Modelfile's FROM line ("" when the server does not say).
	GGUFPath string `json:"gguf_path,omitempty"`

	// ModelfileNumCtx is num_ctx from the Modelfile's PARAMETER lines (0: unset).
	ModelfileNumCtx int `json:"modelfile_num_ctx,omitempty"`
	// ModelfileNumGPU is num_gpu from the PARAMETER lines: how many layers
	// Ollama offloads to the GPU (nil: unset, Ollama decides).
	ModelfileNumGPU *int `json:"modelfile_num_gpu,omitempty"`
	// Template is the model's chat template, when known.
	Template string `json:"-"`
}

// MoE reports whether the model is a mixture of experts.
func (m ModelInfo) MoE() bool { return m.ExpertCount > 0 }

// Has reports whether the model lists capability c.
func (m ModelInfo) Has(c Capability) bool { return slices.Contains(m.Capabilities, c) }

// RunningModel is a model loaded in memory, as /api/ps reports it.
type RunningModel struct {
	Name          string    `json:"name"`
	SizeBytes     int64     `json:"size_bytes"`
	VRAMBytes     int64     `json:"vram_bytes"`
	ContextLength int       `json:"context_length"`
	ExpiresAt     time.Time `json:"expires_at"`
}
