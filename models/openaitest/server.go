// Package openaitest is a scripted fake OpenAI-compatible server for tests
// and demos, in three flavours: llama.cpp's llama-server, vLLM and LM
// Studio. It streams /v1/chat/completions as server-sent events the way
// each of them does (llama-server's first role chunk, tool-call deltas with
// the id and name first and the arguments in pieces, the finish chunk, the
// usage chunk only when stream_options.include_usage asks, llama-server's
// timings; vLLM's reasoning field and ids), answers their real error bodies
// (llama-server without --jinja, vLLM without --enable-auto-tool-choice, a
// prompt over the window, an unknown model), and serves what each says
// about itself: llama-server's /props and /health, vLLM's max_model_len,
// LM Studio's /api/v0/models. testdata/ holds captured-style transcripts
// written from the servers' documentation and source; wire_test.go checks
// the fake against them.
//
// Tests script the replies (Script, Respond) and read back what was asked
// (Requests). openaitest imports only the standard library.
package openaitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Flavor is the server software the fake behaves as.
type Flavor string

// The flavours.
const (
	LlamaServer Flavor = "llama-server"
	VLLM        Flavor = "vllm"
	LMStudio    Flavor = "lmstudio"
)

// DefaultWindow is the context window served unless WithWindow says.
const DefaultWindow = 8192

// Server is a fake OpenAI-compatible server. It is safe for concurrent
// requests.
type Server struct {
	tb  testing.TB
	ts  *httptest.Server
	cfg config

	mu       sync.Mutex
	script   []Reply
	respond  func(Request) Reply
	requests []Request
	embeds   int
	seq      int
}

type config struct {
	flavor     Flavor
	model      string
	window     int
	noTools    bool
	noUsage    bool
	hideWindow bool
	alternate  bool
	nineIDs    bool
	embedDims  int
	embedModel string
	embedBatch int
	apiKey     string
	count      func(string) int
	listener   net.Listener
	respond    func(Request) Reply
	others     []string
	othersLead bool
	modelPath  string
	loading    bool
}

// Option configures a Server.
type Option func(*config)

// WithFlavor sets the server software (default LlamaServer).
func WithFlavor(f Flavor) Option { return func(c *config) { c.flavor = f } }

// WithModel sets the chat model's id (default: a name typical of the flavour).
func WithModel(id string) Option { return func(c *config) { c.model = id } }

// WithModelPath makes llama-server's /props say it runs the model file
// at path (default: the model's name).
func WithModelPath(path string) Option { return func(c *config) { c.modelPath = path } }

// WithWindow sets the served context window in tokens.
func WithWindow(n int) Option { return func(c *config) { c.window = n } }

// WithoutTools makes the server refuse the tools field, as llama-server
// without --jinja and vLLM without --enable-auto-tool-choice do.
func WithoutTools() Option { return func(c *config) { c.noTools = true } }

// WithAlternatingRoles makes the model's chat template refuse two user
// (or two assistant) messages in a row, as Gemma 3's and Mistral's
// templates do; llama-server answers such a request 500 with the
// template's exception
// (https://github.com/ggml-org/llama.cpp/issues/19851,
// https://github.com/nextai-translator/raycast-openai-translator/issues/34).
func WithAlternatingRoles() Option { return func(c *config) { c.alternate = true } }

// WithNineCharCallIDs makes the model's chat template refuse tool-call
// ids that are not 9 letters and digits, as the templates of Mistral's
// models (Mistral 7B v0.3, Nemo, Ministral, Small 3.2) do; llama-server
// answers such a request 500 with the template's exception, and gives
// its own calls such ids
// (https://github.com/ggml-org/llama.cpp/pull/14349,
// https://github.com/ggml-org/llama.cpp/issues/26359).
func WithNineCharCallIDs() Option { return func(c *config) { c.nineIDs = true } }

// WithoutUsage makes the server ignore stream_options.include_usage and
// report no token counts.
func WithoutUsage() Option { return func(c *config) { c.noUsage = true } }

// WithOtherModels lists more models after the chat model in /v1/models,
// as LM Studio lists every model downloaded; chat requests still need
// the chat model.
func WithOtherModels(ids ...string) Option { return func(c *config) { c.others = ids } }

// WithLoading makes a llama-server that is still loading its model: it
// lists the model (without meta) and answers everything else 503
// "Loading model", as tools/server's middleware_server_state does
// (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-http.cpp).
func WithLoading() Option { return func(c *config) { c.loading = true } }

// WithOtherModelsFirst lists the other models before the chat model in
// /v1/models, as LM Studio may: it lists every model downloaded, loaded
// or not, in its own order, and says which are loaded only in
// /api/v0/models (https://lmstudio.ai/docs/developer/rest/endpoints).
func WithOtherModelsFirst() Option { return func(c *config) { c.othersLead = true } }

// WithHiddenWindow makes the server say nothing about its window: no
// /props, no max_model_len, no loaded_context_length.
func WithHiddenWindow() Option { return func(c *config) { c.hideWindow = true } }

// WithEmbeddings serves /v1/embeddings with vectors of dims numbers for
// model (llama-server started with --embeddings; "" accepts any name).
// Without it the server refuses embeddings.
func WithEmbeddings(model string, dims int) Option {
	return func(c *config) { c.embedModel, c.embedDims = model, dims }
}

// WithEmbedBatch makes llama-server refuse to embed an input of more than
// n tokens, as it does one longer than its physical batch (-ub, 512 by
// default): embedding models read the whole input in one batch, and the
// server answers 500 "input (N tokens) is too large to process"
// (https://github.com/ggml-org/llama.cpp/pull/7389,
// https://github.com/ggml-org/llama.cpp/issues/25293).
func WithEmbedBatch(n int) Option { return func(c *config) { c.embedBatch = n } }

// WithAPIKey makes the server demand "Authorization: Bearer key".
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithCounter replaces the prompt token counter (default: one token per
// four bytes of the rendered prompt, rounded up).
func WithCounter(count func(string) int) Option { return func(c *config) { c.count = count } }

// WithListener serves on l instead of a fresh loopback port.
func WithListener(l net.Listener) Option { return func(c *config) { c.listener = l } }

// WithResponder sets the responder used when the script is empty.
func WithResponder(f func(Request) Reply) Option { return func(c *config) { c.respond = f } }

// New starts a fake server for one test, closed when the test ends. A chat
// request that finds the script empty and no responder fails the test.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := start(t, opts)
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake server outside a test; Close stops it.
func NewServer(opts ...Option) *Server { return start(nil, opts) }

func start(tb testing.TB, opts []Option) *Server {
	c := config{flavor: LlamaServer, window: DefaultWindow}
	for _, o := range opts {
		o(&c)
	}
	if c.model == "" {
		c.model = map[Flavor]string{
			LlamaServer: "models/Qwen3-8B-Q4_K_M.gguf",
			VLLM:        "Qwen/Qwen3-8B",
			LMStudio:    "qwen/qwen3-8b",
		}[c.flavor]
	}
	if c.count == nil {
		c.count = func(s string) int { return (len(s) + 3) / 4 }
	}
	s := &Server{tb: tb, cfg: c, respond: c.respond}
	s.ts = httptest.NewUnstartedServer(s.routes())
	if c.listener != nil {
		s.ts.Listener.Close()
		s.ts.Listener = c.listener
	}
	s.ts.Start()
	return s
}

// URL is the server's base URL, such as "http://127.0.0.1:40123" (the
// API is under /v1).
func (s *Server) URL() string { return s.ts.URL }

// Model is the chat model's id.
func (s *Server) Model() string { return s.cfg.model }

// Close stops the server.
func (s *Server) Close() { s.ts.Close() }

// Script queues replies, first in first out.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Respond sets the responder used when the script is empty.
func (s *Server) Respond(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// Requests returns every chat request received, in order; probes (one
// token asked for) included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Chats returns the chat requests that were not one-token probes.
func (s *Server) Chats() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.MaxTokens != 1 {
			out = append(out, r)
		}
	}
	return out
}

// Embeds counts the /v1/embeddings requests.
func (s *Server) Embeds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embeds
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.auth(s.handleChat))
	mux.HandleFunc("POST /v1/embeddings", s.auth(s.handleEmbed))
	switch s.cfg.flavor {
	case LlamaServer:
		// With --api-key, llama-server keeps /health and /v1/models public
		// and asks the key of everything else, /props included
		// (middleware_validate_api_key in tools/server/server-http.cpp,
		// https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-http.cpp).
		mux.HandleFunc("GET /v1/models", s.handleModels)
		mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		})
		if !s.cfg.hideWindow {
			mux.HandleFunc("GET /props", s.auth(s.handleProps))
		}
	default:
		mux.HandleFunc("GET /v1/models", s.auth(s.handleModels))
	}
	if s.cfg.flavor == LMStudio {
		mux.HandleFunc("GET /api/v0/models", s.handleLMModels)
		mux.HandleFunc("GET /api/v0/models/{id...}", s.handleLMModels)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.notFound(w)
	})
	if s.cfg.loading && s.cfg.flavor == LlamaServer {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/models" || r.URL.Path == "/models" {
				mux.ServeHTTP(w, r)
				return
			}
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]any{"message": "Loading model", "type": "unavailable_error", "code": 503}})
		})
	}
	return mux
}

// notFound answers an unknown path as the flavour's web framework does.
func (s *Server) notFound(w http.ResponseWriter) {
	switch s.cfg.flavor {
	case VLLM:
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"}) // FastAPI
	case LlamaServer:
		s.writeError(w, http.StatusNotFound, "File Not Found", "not_found_error")
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Unexpected endpoint or method."})
	}
}

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.apiKey {
			switch s.cfg.flavor {
			case VLLM:
				writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			default:
				s.writeError(w, http.StatusUnauthorized, "Invalid API Key", "authentication_error")
			}
			return
		}
		h(w, r)
	}
}

// writeError answers with the flavour's error body.
func (s *Server) writeError(w http.ResponseWriter, status int, msg, typ string) {
	switch s.cfg.flavor {
	case VLLM:
		// vllm/entrypoints/openai/protocol.py ErrorResponse{error: ErrorInfo}.
		writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": status}})
	case LMStudio:
		writeJSON(w, status, map[string]any{"error": msg})
	default:
		// tools/server format_error_response.
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"openaitest: encoding the response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	c := s.cfg
	m := map[string]any{"id": c.model, "object": "model", "created": 1735142223}
	switch c.flavor {
	case LlamaServer:
		m["owned_by"] = "llamacpp"
		m["meta"] = map[string]any{"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 40960, "n_embd": 4096, "n_params": 8190735360, "size": 5027783488}
		if c.loading {
			m["meta"] = nil // not known before the model is loaded
		}
	case VLLM:
		m["owned_by"], m["root"], m["parent"], m["permission"] = "vllm", c.model, nil, []any{}
		if !c.hideWindow {
			m["max_model_len"] = c.window
		}
	default:
		m["owned_by"] = "organization_owner"
	}
	var data []any
	for _, id := range c.others {
		data = append(data, map[string]any{"id": id, "object": "model", "owned_by": m["owned_by"]})
	}
	if c.othersLead {
		data = append(data, m)
	} else {
		data = append([]any{m}, data...)
	}
	if c.embedDims > 0 && c.embedModel != "" && c.flavor == LMStudio {
		data = append(data, map[string]any{"id": c.embedModel, "object": "model", "owned_by": "organization_owner"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) handleProps(w http.ResponseWriter, r *http.Request) {
	// tools/server README: GET /props.
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{
			"id": 0, "id_task": -1, "n_ctx": s.cfg.window, "speculative": false, "is_processing": false,
			"params": map[string]any{"n_predict": -1, "temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "stream": true},
		},
		"total_slots":        1,
		"model_path":         cmp.Or(s.cfg.modelPath, s.cfg.model),
		"chat_template":      "{{- ... -}}",
		"chat_template_caps": map[string]any{"supports_tools": !s.cfg.noTools},
		"modalities":         map[string]any{"vision": false},
		"build_info":         "b6710-74b8fc17",
		"is_sleeping":        false,
	})
}

func (s *Server) handleLMModels(w http.ResponseWriter, r *http.Request) {
	c := s.cfg
	m := map[string]any{"id": c.model, "object": "model", "type": "llm", "publisher": "qwen", "arch": "qwen3",
		"compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "loaded", "max_context_length": 40960}
	if !c.hideWindow {
		m["loaded_context_length"] = c.window
	} else {
		m["state"] = "not-loaded"
	}
	if id := r.PathValue("id"); id != "" {
		if id != c.model {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("Model %q not found", id)})
			return
		}
		writeJSON(w, http.StatusOK, m)
		return
	}
	// Every model downloaded is listed, each with its state; the others
	// are not loaded.
	data := []any{m}
	for _, id := range c.others {
		typ := "llm"
		if strings.Contains(id, "embed") {
			typ = "embeddings"
		}
		data = append(data, map[string]any{"id": id, "object": "model", "type": typ, "state": "not-loaded", "max_context_length": 32768})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Input any    `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return
	}
	if s.cfg.embedDims == 0 {
		switch s.cfg.flavor {
		case VLLM:
			s.writeError(w, http.StatusBadRequest, "The model does not support Embeddings API", "BadRequestError")
		default:
			s.writeError(w, http.StatusNotImplemented, "This server does not support embeddings. Start it with `--embeddings`", "not_supported_error")
		}
		return
	}
	if s.cfg.embedModel != "" && s.cfg.flavor != LlamaServer && req.Model != s.cfg.embedModel {
		s.writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model), "NotFoundError")
		return
	}
	var inputs []string
	switch v := req.Input.(type) {
	case string:
		inputs = []string{v}
	case []any:
		for _, x := range v {
			str, _ := x.(string)
			inputs = append(inputs, str)
		}
	}
	s.mu.Lock()
	s.embeds++
	s.mu.Unlock()
	for _, text := range inputs {
		if n := s.cfg.count(text); s.cfg.embedBatch > 0 && n > s.cfg.embedBatch {
			s.writeError(w, http.StatusInternalServerError, fmt.Sprintf("input (%d tokens) is too large to process. increase the physical batch size (current batch size: %d)", n, s.cfg.embedBatch), "server_error")
			return
		}
	}
	data := make([]any, len(inputs))
	total := 0
	for i, text := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embedding(text, s.cfg.embedDims)}
		total += s.cfg.count(text)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": total, "total_tokens": total}})
}

// embedding is a deterministic vector built from the words of text, so
// that texts sharing words lie close together. It is not normalised, as
// servers with --pooling none or mean send them.
func embedding(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := 2166136261
		for i := 0; i < len(w); i++ {
			h = (h ^ int(w[i])) * 16777619 & 0x7fffffff
		}
		v[h%dims] += 3
	}
	v[0] += 0.5
	return v
}
