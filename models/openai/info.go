package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/ternhq/tern/models"
)

// Kind names the server software, as far as its answers tell.
type Kind string

// The servers tern knows apart.
const (
	LlamaServer Kind = "llama-server"
	VLLM        Kind = "vLLM"
	LMStudio    Kind = "LM Studio"
	// Ollama serves /v1 too, but ignores there the window tern plans.
	Ollama  Kind = "Ollama"
	Generic Kind = "OpenAI-compatible server"
)

// Model is one entry of /v1/models, with what its server added.
type Model struct {
	ID      string
	OwnedBy string
	// MaxModelLen is vLLM's served window (0: not sent).
	MaxModelLen int
	// TrainCtx and Params come from llama-server's meta (0: not sent).
	TrainCtx int
	Params   int64
	Size     int64
	// Loaded is set when LM Studio, which lists every model downloaded,
	// says this one is loaded.
	Loaded bool
}

type modelList struct {
	Data []struct {
		ID          string `json:"id"`
		OwnedBy     string `json:"owned_by"`
		MaxModelLen int    `json:"max_model_len"`
		Meta        *struct {
			NCtxTrain int   `json:"n_ctx_train"`
			NParams   int64 `json:"n_params"`
			Size      int64 `json:"size"`
		} `json:"meta"`
	} `json:"data"`
}

// Models lists /v1/models, with which of them LM Studio has loaded (its
// /api/v0/models says; other servers have no such list).
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	var l modelList
	if err := c.getJSON(ctx, "openai models", "/v1/models", &l); err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(l.Data))
	for _, d := range l.Data {
		m := Model{ID: d.ID, OwnedBy: d.OwnedBy, MaxModelLen: d.MaxModelLen}
		if d.Meta != nil {
			m.TrainCtx, m.Params, m.Size = d.Meta.NCtxTrain, d.Meta.NParams, d.Meta.Size
		}
		out = append(out, m)
	}
	var lm struct {
		Data []lmModel `json:"data"`
	}
	if len(out) > 1 && c.getJSON(ctx, "lm studio models", "/api/v0/models", &lm) == nil {
		loaded := map[string]bool{}
		for _, m := range lm.Data {
			loaded[m.ID] = m.State == "loaded"
		}
		for i := range out {
			out[i].Loaded = loaded[out[i].ID]
		}
	}
	return out, nil
}

// IsOllama reports whether the server answers Ollama's /api/version, and
// with which version. Ollama serves /v1 too, but tern speaks Ollama's
// native API to it, the only one that honours num_ctx. err is set only
// when nothing answered (models.ErrUnreachable, models.ErrNoAnswer): any
// answer but Ollama's is ok false.
func (c *Client) IsOllama(ctx context.Context) (version string, ok bool, err error) {
	var v struct {
		Version string `json:"version"`
	}
	err = c.getJSON(ctx, "ollama version", "/api/version", &v)
	switch {
	case errors.Is(err, models.ErrUnreachable) || errors.Is(err, models.ErrNoAnswer):
		return "", false, err
	case err != nil || v.Version == "":
		return "", false, nil
	}
	return v.Version, true, nil
}

// Server is what an OpenAI-compatible server says about itself and one
// of its models.
type Server struct {
	Kind Kind
	// Build is the server's own version words, when it says
	// (llama-server's build_info).
	Build string
	// Model is the model's entry in /v1/models.
	Model Model
	// Window is the served context window in tokens (0: the server does
	// not say), and WindowSource says which answer it came from.
	Window       int
	WindowSource string
	// TrainCtx is the model's trained context, when the server says.
	TrainCtx int
	// Loaded is false when LM Studio lists the model as not loaded.
	Loaded bool
	// Slots is llama-server's --parallel (0: unknown); the window is per slot.
	Slots int
	// ModelPath is the model file llama-server runs (its /props
	// model_path; "" from other servers).
	ModelPath string
}

type props struct {
	DefaultGenerationSettings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	NCtx       int    `json:"n_ctx"`
	TotalSlots int    `json:"total_slots"`
	ModelPath  string `json:"model_path"`
	BuildInfo  string `json:"build_info"`
}

type lmModel struct {
	ID                  string `json:"id"`
	Type                string `json:"type"`
	State               string `json:"state"`
	MaxContextLength    int    `json:"max_context_length"`
	LoadedContextLength int    `json:"loaded_context_length"`
	Arch                string `json:"arch"`
	Quantization        string `json:"quantization"`
}

// Describe asks the server what it is and what window it serves model
// with: llama-server's /props (default_generation_settings.n_ctx, or
// n_ctx in older builds), vLLM's max_model_len in /v1/models, LM Studio's
// loaded_context_length in /api/v0/models. A server that says nothing
// leaves Window 0: tern never guesses a window. model "" describes the
// server's first model.
func (c *Client) Describe(ctx context.Context, model string) (Server, error) {
	list, err := c.Models(ctx)
	if err != nil {
		return Server{}, err
	}
	s := Server{Kind: Generic, Loaded: true}
	found := false
	for _, m := range list {
		if m.ID == model || model == "" {
			s.Model, found = m, true
			break
		}
	}
	if !found && model != "" {
		// llama-server serves one model whatever the name asked for.
		s.Model = Model{ID: model}
	}
	if s.Model.OwnedBy == "vllm" {
		s.Kind = VLLM
	}
	if s.Model.MaxModelLen > 0 {
		s.Window, s.WindowSource = s.Model.MaxModelLen, "vLLM /v1/models max_model_len"
	}
	s.TrainCtx = s.Model.TrainCtx

	// llama-server: /props. In router mode it needs the model's name.
	path := "/props"
	if model != "" {
		path += "?model=" + url.QueryEscape(model)
	}
	var p props
	switch err := c.getJSON(ctx, "llama-server props", path, &p); {
	case err == nil && (p.DefaultGenerationSettings.NCtx > 0 || p.NCtx > 0 || p.BuildInfo != ""):
		s.Kind, s.Build, s.Slots, s.ModelPath = LlamaServer, p.BuildInfo, p.TotalSlots, p.ModelPath
		switch {
		case p.DefaultGenerationSettings.NCtx > 0:
			s.Window, s.WindowSource = p.DefaultGenerationSettings.NCtx, "llama-server /props default_generation_settings.n_ctx"
		case p.NCtx > 0:
			s.Window, s.WindowSource = p.NCtx, "llama-server /props n_ctx"
		}
	case err != nil && (isUnreachable(err) || errors.Is(err, ErrLoading) || errors.Is(err, ErrUnauthorized)):
		// A server still loading says its window once it has loaded;
		// llama-server with --api-key lists its models to anyone but
		// answers /props only with the key.
		return s, err
	}
	if s.Kind != Generic {
		return s, nil
	}

	// LM Studio: /api/v0/models, whose ids hold slashes ("qwen/qwen3-8b").
	var lm struct {
		Data []lmModel `json:"data"`
	}
	if err := c.getJSON(ctx, "lm studio models", "/api/v0/models", &lm); err == nil {
		for _, m := range lm.Data {
			if m.ID != s.Model.ID {
				continue
			}
			s.Kind, s.Loaded, s.TrainCtx = LMStudio, m.State == "loaded", m.MaxContextLength
			if m.LoadedContextLength > 0 {
				s.Window, s.WindowSource = m.LoadedContextLength, "LM Studio /api/v0/models loaded_context_length"
			}
		}
	}
	if s.Kind == Generic {
		if v, ok, _ := c.IsOllama(ctx); ok {
			s.Kind, s.Build = Ollama, v
		}
	}
	return s, nil
}

func isUnreachable(err error) bool { return errors.Is(err, models.ErrUnreachable) }

// ToolSupport is the answer to a one-token request that offers a tool.
type ToolSupport struct {
	// Native is set when the server took the tools field.
	Native bool
	// Why is the server's refusal, when it refused.
	Why string
	// Usage is set when the server reported token usage in the stream.
	Usage bool
}

// ProbeTools makes a one-token streamed request that offers one tool and
// asks for usage: whether the server accepts tools (llama-server needs
// --jinja, vLLM --enable-auto-tool-choice), and whether it reports usage.
// It is a chat request, under the header and idle timeouts: the server
// may load the model first. An error other than a refusal of tools (unreachable, unknown model) is
// returned as is.
func (c *Client) ProbeTools(ctx context.Context, model string) (ToolSupport, error) {
	body := &chatRequest{
		Model:         model,
		Messages:      []wireMessage{{Role: "user", Content: "Say OK."}},
		Tools:         []wireTool{{Type: "function", Function: wireSpec{Name: "noop", Description: "Does nothing.", Parameters: []byte(`{"type":"object","properties":{}}`)}}},
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		MaxTokens:     1,
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	resp, err := c.post(ctx, cancel, "openai probe "+model, body)
	if errors.Is(err, models.ErrNoTools) {
		var se *ServerError
		why := err.Error()
		if errors.As(err, &se) {
			why = se.Message
		}
		return ToolSupport{Why: why}, nil
	}
	if err != nil {
		return ToolSupport{}, err
	}
	defer resp.Body.Close()
	idle := cmp.Or(c.IdleTimeout, DefaultIdleTimeout)
	watchdog := time.AfterFunc(idle, func() { cancel(errIdle) })
	defer watchdog.Stop()
	ts := ToolSupport{Native: true}
	s := newStream(io.LimitReader(resp.Body, 1<<20))
	for {
		data, err := s.next()
		watchdog.Reset(idle)
		if err != nil && context.Cause(ctx) == errIdle {
			return ToolSupport{}, fmt.Errorf("openai probe %s: %w: the server at %s sent nothing for %s (stream.idle_timeout in the config)",
				model, models.ErrStalled, c.Host(), idle)
		}
		if err != nil || data == nil {
			break
		}
		if strings.Contains(string(data), `"usage"`) && !strings.Contains(string(data), `"usage":null`) {
			ts.Usage = true
		}
		if strings.Contains(string(data), `"error"`) {
			if e, ok := parseError(0, data); ok && noTools(strings.ToLower(e.Message)) {
				return ToolSupport{Why: e.Message}, nil
			}
		}
	}
	return ts, nil
}

// String describes the server for the user: "llama-server b6123 at http://…".
func (s Server) String() string {
	if s.Build != "" {
		return fmt.Sprintf("%s %s", s.Kind, s.Build)
	}
	return string(s.Kind)
}
