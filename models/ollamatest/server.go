// Package ollamatest is a scripted fake Ollama server for tests and demos.
// It speaks Ollama v0.17.4's wire format, encoded with the api package's own
// types and checked against the captures in shared/ollama-wire: NDJSON
// streaming, the real error bodies (404 unknown model, 400 no tools / no
// thinking), thinking on by default for thinking models, silent truncation
// of an over-long prompt with prompt_eval_count reported after it, model
// reloads when num_ctx changes, /api/show, /api/tags, /api/ps, /api/embed
// and /api/version.
//
// Tests script the replies (Script, Respond) and read back what was asked
// (Requests, Records). ollamatest imports only the standard library and
// Ollama's api packages: it knows nothing of tern, so every package from
// models/ollama up can use it.
package ollamatest

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// DefaultNumCtx is the window served when neither the request nor the
// Modelfile sets num_ctx: Ollama's default on GPUs under 24 GiB.
const DefaultNumCtx = 4096

// Server is a fake Ollama. It is safe for concurrent requests.
type Server struct {
	tb      testing.TB // nil for NewServer
	ts      *httptest.Server
	count   func(string) int
	closing chan struct{}
	once    sync.Once

	mu      sync.Mutex
	models  []Model
	script  []Reply
	respond func(api.ChatRequest) Reply
	records []Record
	loaded  map[string]*loadedModel
	reloads int
	unloads int
	// evictions counts models unloaded to make room (WithVRAM).
	evictions int
	// repeatLimit and toolParser: see WithRepeatLimit and WithToolParser.
	repeatLimit int
	toolParser  bool
	// vram: see WithVRAM.
	vram int64
}

// Record is what the server saw and did for one /api/chat request.
type Record struct {
	Request api.ChatRequest
	Status  int // HTTP status of the answer (200 for a stream, even one that broke)
	// NumCtx is the window the model was served with.
	NumCtx int
	// PromptTokens is the rendered prompt's size before truncation;
	// PromptEvalCount is what the server reported, after it.
	PromptTokens    int
	PromptEvalCount int
	// Truncated is set when the prompt did not fit: DroppedMessages of the
	// oldest non-system messages were left out, and the rest cut to NumCtx.
	Truncated       bool
	DroppedMessages int
	// Reloaded is set when this request changed the model's num_ctx.
	Reloaded bool
}

type loadedModel struct {
	numCtx  int
	size    int64
	expires time.Time
}

// Option configures a Server.
type Option func(*config)

type config struct {
	count    func(string) int
	models   []Model
	respond  func(api.ChatRequest) Reply
	listener net.Listener
	// repeatLimit and toolParser: see WithRepeatLimit and WithToolParser.
	repeatLimit int
	toolParser  bool
	vram        int64
}

// WithVRAM gives the server a GPU of n bytes: loading a model that does
// not fit beside the loaded ones unloads them first, as Ollama's scheduler
// does, so that switching between two large models reloads each (default:
// room for every model).
func WithVRAM(n int64) Option {
	return func(c *config) { c.vram = n }
}

// WithCounter replaces the prompt token counter (default: one token per
// four bytes, rounded up) used for prompt_eval_count and truncation.
func WithCounter(count func(string) int) Option {
	return func(c *config) { c.count = count }
}

// WithModels installs models, as AddModel does.
func WithModels(ms ...Model) Option {
	return func(c *config) { c.models = append(c.models, ms...) }
}

// WithResponder sets the responder used when the script is empty.
func WithResponder(f func(api.ChatRequest) Reply) Option {
	return func(c *config) { c.respond = f }
}

// WithListener serves on l instead of a fresh loopback port; cmd/fakeollama
// uses it to listen on a chosen address.
func WithListener(l net.Listener) Option {
	return func(c *config) { c.listener = l }
}

// New starts a fake server for one test, closed when the test ends. A chat
// request that finds the script empty and no responder fails the test.
// It starts with no models installed.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := start(t, opts)
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake server outside a test; Close stops it. A chat
// request that finds the script empty and no responder gets HTTP 500.
func NewServer(opts ...Option) *Server { return start(nil, opts) }

func start(tb testing.TB, opts []Option) *Server {
	var c config
	for _, o := range opts {
		o(&c)
	}
	s := &Server{
		tb:      tb,
		count:   c.count,
		closing: make(chan struct{}),
		respond: c.respond,
		loaded:  map[string]*loadedModel{},

		repeatLimit: c.repeatLimit,
		toolParser:  c.toolParser,
		vram:        c.vram,
	}
	if s.count == nil {
		s.count = func(text string) int { return (len(text) + 3) / 4 }
	}
	for _, m := range c.models {
		s.AddModel(m)
	}
	s.ts = httptest.NewUnstartedServer(s.routes())
	if c.listener != nil {
		s.ts.Listener.Close()
		s.ts.Listener = c.listener
	}
	s.ts.Start()
	return s
}

// URL is the server's base URL, such as "http://127.0.0.1:40123".
func (s *Server) URL() string { return s.ts.URL }

// Close stops the server; streams in progress end at once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.Close()
	})
}

// AddModel installs m, replacing a model of the same name.
func (s *Server) AddModel(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m = m.normalize(len(s.models))
	if i := slices.IndexFunc(s.models, func(x Model) bool { return x.Name == m.Name }); i >= 0 {
		s.models[i] = m
		return
	}
	s.models = append(s.models, m)
}

// Script queues replies for /api/chat, first in first out.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Respond sets the responder used when the script is empty.
func (s *Server) Respond(f func(req api.ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// Requests returns every /api/chat request received, decoded, in order.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]api.ChatRequest, len(s.records))
	for i, r := range s.records {
		out[i] = r.Request
	}
	return out
}

// Records returns what happened to every /api/chat request, in order.
func (s *Server) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.records)
}

// Truncations counts the chat requests whose prompt did not fit num_ctx.
func (s *Server) Truncations() int {
	n := 0
	for _, r := range s.Records() {
		if r.Truncated {
			n++
		}
	}
	return n
}

// Reloads counts the times a request changed a loaded model's num_ctx,
// which makes the real server reload the model.
func (s *Server) Reloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reloads
}

// Unloads counts the requests that unloaded a model (a chat request with
// no messages and keep_alive 0). They are not in Records.
func (s *Server) Unloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unloads
}

// Evictions counts the models unloaded to make room for another (see
// WithVRAM).
func (s *Server) Evictions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evictions
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("Ollama is running"))
	})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("GET /api/ps", s.handlePs)
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	// Ollama's OpenAI-compatible model list (openai.ToListCompletion).
	mux.HandleFunc("GET /v1/models", s.handleOpenAIModels)
	return mux
}

// Version is what /api/version reports.
const Version = "0.17.4"

// lookup finds an installed model by any spelling Ollama accepts.
func (s *Server) lookup(name string) (Model, bool) {
	if strings.TrimSpace(name) == "" {
		return Model{}, false
	}
	want := shortName(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.models, func(m Model) bool { return m.Name == want })
	if i < 0 {
		return Model{}, false
	}
	return s.models[i], true
}

// load marks m as loaded with the window the options ask for and reports
// the window, whether the model had to be loaded, and whether that was a
// reload for a changed num_ctx.
func (s *Server) load(m Model, opts map[string]any, keepAlive *api.Duration) (numCtx int, fresh, reloaded bool) {
	numCtx = DefaultNumCtx
	for _, p := range m.params() {
		if p[0] == "num_ctx" {
			if n, ok := asInt(p[1]); ok {
				numCtx = n
			}
		}
	}
	if n, ok := opts["num_ctx"].(float64); ok && n > 0 {
		numCtx = int(n)
	}
	numCtx = max(numCtx, 4) // server/sched.go
	if m.ContextLength > 0 {
		numCtx = min(numCtx, m.ContextLength) // llm/server.go: capped to the trained context
	}
	ttl := 5 * time.Minute
	if keepAlive != nil {
		ttl = min(keepAlive.Duration, 100*365*24*time.Hour)
	}
	now := time.Now()

	s.mu.Lock()
	defer s.mu.Unlock()
	lm := s.loaded[m.Name]
	switch {
	case lm == nil || !lm.expires.After(now):
		fresh = true
	case lm.numCtx != numCtx:
		fresh, reloaded = true, true
		s.reloads++
	}
	size := m.SizeBytes + kvBytes(m, numCtx)
	if fresh && s.vram > 0 {
		var others int64
		for name, o := range s.loaded {
			if name != m.Name {
				others += o.size
			}
		}
		if others+size > s.vram {
			for name := range s.loaded {
				if name != m.Name {
					delete(s.loaded, name)
					s.evictions++
				}
			}
		}
	}
	s.loaded[m.Name] = &loadedModel{numCtx: numCtx, size: size, expires: now.Add(ttl)}
	return numCtx, fresh, reloaded
}

func (s *Server) unload(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.loaded, name)
}

// kvBytes is the f16 KV cache of m at numCtx, for /api/ps sizes.
func kvBytes(m Model, numCtx int) int64 {
	head := m.KeyLength
	if head == 0 && m.HeadCount > 0 {
		head = m.EmbeddingLength / m.HeadCount
	}
	return 2 * int64(m.BlockCount) * int64(m.HeadCountKV) * int64(head) * 2 * int64(numCtx)
}

// writeJSON answers the way gin's c.JSON does: json.Marshal, no newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"ollamatest: encoding the response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// writeError writes the real server's error body, {"error":"…"}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": msg})
}

func asInt(s string) (int, bool) {
	var n int
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &n); err != nil {
		return 0, false
	}
	return n, true
}
