package agent

// The test harness of the agent's tests: an agent wired to a scripted fake
// Ollama, an in-memory recorder and a fixture workspace, and helpers that
// read the events it emitted.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// memRecorder is an in-memory recorder.
type memRecorder struct {
	mu       sync.Mutex
	messages []models.Message
	calls    []session.ToolCallRecord
	turns    []session.TurnMetrics
}

func (r *memRecorder) AppendMessage(_ context.Context, _ string, m models.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.messages = append(r.messages, m)
	return nil
}

func (r *memRecorder) RecordToolCall(_ context.Context, _ string, c session.ToolCallRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return nil
}

func (r *memRecorder) RecordTurn(_ context.Context, _ string, m session.TurnMetrics) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns = append(r.turns, m)
	return nil
}

var sharedCounter = sync.OnceValues(budget.NewCounter)

func counter(t testing.TB) *budget.Counter {
	t.Helper()
	c, err := sharedCounter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// harness is an agent wired to a fake Ollama and a fixture workspace.
type harness struct {
	t      *testing.T
	root   string
	srv    *ollamatest.Server
	rec    *memRecorder
	agent  *Agent
	events []Event
	mu     sync.Mutex
}

type option func(*Config, *[]tools.Tool, *Approver)

func withConfig(f func(*Config)) option {
	return func(c *Config, _ *[]tools.Tool, _ *Approver) { f(c) }
}

func withTools(ts ...tools.Tool) option {
	return func(_ *Config, list *[]tools.Tool, _ *Approver) { *list = append(*list, ts...) }
}

func withApprover(a Approver) option {
	return func(_ *Config, _ *[]tools.Tool, ap *Approver) { *ap = a }
}

// fakeServer starts a fake Ollama serving model, which counts prompt
// tokens with tern's own counter (so "fits" means the same to both;
// calibration between differing counts is tested in context/budget), and
// returns it with a client and an agent config for it.
func fakeServer(t *testing.T, model ollamatest.Model) (*ollamatest.Server, *ollama.Client, Config) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.WithModels(model), ollamatest.WithCounter(counter(t).Count))
	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	return srv, client, Config{SessionID: "s1", Model: model.Name, NumCtx: 8192, System: "You are a test."}
}

func newHarness(t *testing.T, model ollamatest.Model, opts ...option) *harness {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the fixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("second file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	srv, client, cfg := fakeServer(t, model)
	list := tools.ReadOnlyTools(ws)
	var ap Approver
	for _, o := range opts {
		o(&cfg, &list, &ap)
	}
	h := &harness{t: t, root: root, srv: srv, rec: &memRecorder{}}
	h.agent = New(cfg, client, tools.NewSet(list...), h.rec, ap, counter(t))
	return h
}

func (h *harness) run(ctx context.Context, prompt string) error {
	return h.agent.Run(ctx, prompt, func(e Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	})
}

func (h *harness) types() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ts []string
	for _, e := range h.events {
		if e.Type() != "token" && e.Type() != "thinking" {
			ts = append(ts, e.Type())
		}
	}
	return ts
}

func (h *harness) answer() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	for _, e := range h.events {
		if tok, ok := e.(Token); ok {
			b.WriteString(tok.Text)
		}
	}
	return b.String()
}

func (h *harness) done() Done {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.events) == 0 {
		h.t.Fatal("no events")
	}
	d, ok := h.events[len(h.events)-1].(Done)
	if !ok {
		h.t.Fatalf("last event is %T, not Done", h.events[len(h.events)-1])
	}
	return d
}

func toolEnds(h *harness) []ToolEnd { return eventsOf[ToolEnd](h) }

// eventsOf is the events of type T the harness's agent emitted, in order.
func eventsOf[T Event](h *harness) []T {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []T
	for _, e := range h.events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}
