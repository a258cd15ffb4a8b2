package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

var sharedCounter = sync.OnceValues(budget.NewCounter)

func counter(t testing.TB) *budget.Counter {
	t.Helper()
	c, err := sharedCounter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wait is how long a test waits for the screen to show something before
// it fails. It only bounds a failure: the tests run with -race on shared
// two-core machines, where the load can slow a screen ten times over.
const wait = 2 * time.Minute

// harness is the real TUI on a simulation screen, driving a real agent
// against a fake Ollama, as cmd/tern wires it.
type harness struct {
	t     *testing.T
	app   *App
	sim   tcell.SimulationScreen
	srv   *ollamatest.Server
	store *session.Store
	root  string
	note  *noteTool
	done  chan error
	// down makes connect fail as when Ollama is not running.
	down   chan bool
	isDown bool
	mu     sync.Mutex
}

type harnessOption func(*Config, *Deps, *harness)

func withConfig(f func(*Config)) harnessOption {
	return func(c *Config, _ *Deps, _ *harness) { f(c) }
}

func withDeps(f func(*Deps)) harnessOption {
	return func(_ *Config, d *Deps, _ *harness) { f(d) }
}

// offline starts the harness with Ollama "down" until up() is called.
func offline() harnessOption {
	return func(_ *Config, _ *Deps, h *harness) { h.isDown = true }
}

func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"README.md": "# demo\nA demo repository.\n",
		"main.go":   "package main\n\nfunc main() { println(\"hi\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()), ollamatest.WithCounter(counter(t).Count))
	store, err := session.OpenWorkspace(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := &harness{t: t, srv: srv, store: store, root: root, note: &noteTool{}, done: make(chan error, 1)}

	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context, req ConnectRequest) (*Backend, error) {
		h.mu.Lock()
		down := h.isDown
		h.mu.Unlock()
		if down {
			return nil, errors.New("cannot reach Ollama at http://127.0.0.1:1: start it with `ollama serve`")
		}
		if _, err := client.List(ctx); err != nil {
			return nil, err
		}
		var sess session.Session
		var history []models.Message
		if req.Resume != "" {
			if sess, err = store.Get(ctx, req.Resume); err != nil {
				return nil, err
			}
			if history, err = store.Messages(ctx, sess.ID); err != nil {
				return nil, err
			}
		} else if sess, err = store.Create(ctx, "qwen3:8b", root); err != nil {
			return nil, err
		}
		set := tools.NewSet(append(tools.ReadOnlyTools(ws), h.note)...)
		ag := agent.New(agent.Config{SessionID: sess.ID, Model: "qwen3:8b", NumCtx: 8192, System: "You are a test.", History: history, Think: "true"},
			client, set, store, req.Approver, counter(t))
		return &Backend{
			Agent: ag, SessionID: sess.ID, Model: "qwen3:8b", Why: "requested", NumCtx: 8192,
			PrefixTokens: ag.PrefixTokens(), History: ag.History(),
			Installed: []models.ModelInfo{{Name: "qwen3:8b", ParameterSize: "8.2B"}},
		}, nil
	}

	// A short grace period: the tests answer a dialog as soon as it
	// takes keys (see settle).
	cfg := Config{Root: root, RetryEvery: 50 * time.Millisecond, KeyGrace: 50 * time.Millisecond}
	deps := Deps{Connect: connect, Sessions: store}
	for _, o := range opts {
		o(&cfg, &deps, h)
	}
	h.sim = tcell.NewSimulationScreen("UTF-8")
	cfg.Screen = h.sim
	h.app = New(cfg, deps)
	h.sim.SetSize(100, 30)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { h.done <- h.app.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(wait):
			t.Error("the TUI did not stop")
		}
	})
	select {
	case <-h.app.FirstDraw():
	case <-time.After(wait):
		t.Fatal("no first frame")
	}
	return h
}

// up brings the fake Ollama "back".
func (h *harness) up() {
	h.mu.Lock()
	h.isDown = false
	h.mu.Unlock()
}

// screen returns the screen's text, read on the event loop.
func (h *harness) screen() string {
	var b strings.Builder
	done := make(chan struct{})
	go func() {
		h.app.app.QueueUpdate(func() {
			cells, w, ht := h.sim.GetContents()
			for y := 0; y < ht; y++ {
				for x := 0; x < w; x++ {
					c := cells[y*w+x]
					if len(c.Runes) == 0 {
						b.WriteByte(' ')
						continue
					}
					b.WriteString(string(c.Runes))
					x += textWidth(string(c.Runes)) - 1 // a wide character fills two cells
				}
				b.WriteByte('\n')
			}
		})
		close(done)
	}()
	select {
	case <-done:
		return b.String()
	case <-h.done:
		h.t.Fatal("the TUI has stopped")
	case <-time.After(wait):
		h.t.Fatal("the event loop does not answer")
	}
	return ""
}

// onLoop runs f on the event loop and waits for it.
func (h *harness) onLoop(f func()) {
	h.app.app.QueueUpdate(f)
}

// waitFor polls the screen until it shows every want.
func (h *harness) waitFor(want ...string) string {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		s := h.screen()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the screen never showed %q:\n%s", missing, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone polls the screen until it no longer shows text.
func (h *harness) waitGone(text string) string {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		s := h.screen()
		if !strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the screen still shows %q:\n%s", text, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitUntil polls cond, read on the event loop.
func (h *harness) waitUntil(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var ok bool
		h.onLoop(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s never happened:\n%s", what, h.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// online waits until a session is open.
func (h *harness) online() {
	h.t.Helper()
	h.waitUntil("connecting", func() bool { return h.app.back != nil })
}

// inputText is the prompt's text.
func (h *harness) inputText() (text string) {
	h.onLoop(func() { text = h.app.input.GetText() })
	return text
}

// sessionID is the open session's id.
func (h *harness) sessionID() (id string) {
	h.onLoop(func() { id = h.app.back.SessionID })
	return id
}

// idle waits until no job runs.
func (h *harness) idle() {
	h.t.Helper()
	h.waitUntil("the job ending", func() bool { return h.app.job == nil })
}

// settle waits until no dialog holds keys back (see keyGuard), so that a
// key the test sends answers the dialog on the screen, as a user's does
// once they have read it.
func (h *harness) settle() {
	h.t.Helper()
	h.waitUntil("the dialog to take keys", func() bool { return !h.app.guarding() })
}

func (h *harness) typeText(s string) {
	h.settle()
	for _, r := range s {
		if r == '\n' {
			h.sim.InjectKey(tcell.KeyEnter, 0, tcell.ModAlt)
			continue
		}
		h.sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
}

func (h *harness) key(k tcell.Key) {
	h.settle()
	h.sim.InjectKey(k, 0, tcell.ModNone)
}

// post queues ev like a key press: tcell's PostEvent drops an event when
// the queue (ten events) is full, as it can be right after typeText.
func (h *harness) post(ev tcell.Event) {
	for h.sim.PostEvent(ev) != nil {
		time.Sleep(time.Millisecond)
	}
}

func (h *harness) send(s string) {
	h.typeText(s)
	h.key(tcell.KeyEnter)
}

// resize makes the screen w×h cells and waits for tern to draw at that
// size.
func (h *harness) resize(w, ht int) {
	h.t.Helper()
	h.onLoop(func() { h.sim.SetSize(w, ht) })
	h.post(tcell.NewEventResize(w, ht))
	h.waitUntil("a draw at the new size", func() bool {
		_, _, cw, ch := h.app.pages.GetRect()
		return cw == w && ch == ht
	})
}

// statusBar is the first row of the screen.
func statusBar(screen string) string {
	line, _, _ := strings.Cut(screen, "\n")
	return line
}

// noteTool is a tool that writes, so it asks for approval.
type noteTool struct {
	mu    sync.Mutex
	notes []string
}

func (n *noteTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: "write_note", Description: "Write a note.",
		Parameters: models.Schema(models.Param{Name: "text", Type: "string", Required: true})}
}

func (n *noteTool) Effect() tools.Effect { return tools.Writes }

func (n *noteTool) Run(_ context.Context, in tools.Input) tools.Result {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = append(n.notes, string(in.Args))
	return tools.Result{Output: "written", Summary: "notes.txt (+1 line)",
		Diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+remember [this]\n"}
}

func (n *noteTool) written() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.notes)
}

// withTiers gives every backend tc as its tier control.
func withTiers(tc TierControl) harnessOption {
	return withDeps(func(d *Deps) {
		inner := d.Connect
		d.Connect = func(ctx context.Context, req ConnectRequest) (*Backend, error) {
			b, err := inner(ctx, req)
			if b != nil {
				b.Tiers = tc
			}
			return b, err
		}
	})
}

// fakeTiers is a tier control over a fixed tool list. It is used on the
// UI goroutine only.
type fakeTiers struct {
	tier int
	set  []int
	// max, when above 0, is the highest tier SetTier accepts.
	max int
}

func (f *fakeTiers) Tier() int { return f.tier }

func (f *fakeTiers) SetTier(_ context.Context, n int) (string, error) {
	if f.max > 0 && n > f.max {
		return "", fmt.Errorf("tier %d is above this session's maximum, %d (--max-tier)", n, f.max)
	}
	f.set = append(f.set, n)
	f.tier = n
	return "", nil
}

func (f *fakeTiers) Tools() []ToolInfo {
	var out []ToolInfo
	for tier, names := range [][]string{{"read_file", "list_dir", "grep", "glob"}, {"edit_file", "write_file"}, {"run_command", "git_status"}, {"fetch_url"}} {
		for _, n := range names {
			out = append(out, ToolInfo{Name: n, Tier: tier, Tokens: 40 + len(n), Active: tier <= f.tier})
		}
	}
	return out
}
