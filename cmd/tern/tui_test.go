package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

// lockedScreen is a simulation screen whose contents a test may read
// while tview draws: Init, Fini, Show and Sync, which write the front
// buffer, and snapshot take the same lock.
type lockedScreen struct {
	tcell.SimulationScreen
	mu sync.Mutex
	// w and h, when set, are the size the screen has from its Init on
	// (a simulation screen starts at 80×25).
	w, h int
}

func (s *lockedScreen) Init() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.SimulationScreen.Init()
	if err == nil && s.w > 0 {
		s.SimulationScreen.SetSize(s.w, s.h)
	}
	return err
}

func (s *lockedScreen) Fini() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Fini()
}

func (s *lockedScreen) Show() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Show()
}

func (s *lockedScreen) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Sync()
}

func (s *lockedScreen) snapshot() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if r := cells[y*w+x].Runes; len(r) > 0 {
				b.WriteString(string(r))
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// waitScreen polls the screen until it shows every want.
// patience is how long a test waits for something it needs (a screen, a
// process, a file) before it fails. It only bounds a failure: the tests
// run with -race on shared two-core machines, where the load can slow a
// step ten times over, so a wait must never be what a passing run needs.
const patience = 2 * time.Minute

func waitScreen(t *testing.T, s *lockedScreen, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		snap := s.snapshot()
		missing := ""
		for _, w := range want {
			if !strings.Contains(snap, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("the TUI never showed %q:\n%s", missing, snap)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone polls the screen until it no longer shows text.
// guardNotice is what a dialog that opened by itself shows while it
// passes typing on to the prompt (tui's keyGuard); it takes keys once the
// notice is gone.
const guardNotice = "typing goes to your prompt"

// waitDialogKeys waits until the open dialog takes keys.
func waitDialogKeys(t *testing.T, s *lockedScreen) {
	t.Helper()
	waitGone(t, s, guardNotice)
}

func waitGone(t *testing.T, s *lockedScreen, text string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for strings.Contains(s.snapshot(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the TUI still shows %q:\n%s", text, s.snapshot())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startTUI runs `tern` (no arguments) in-process on a simulation screen;
// set changes the app before it runs.
func (f *fixture) startTUI(ctx context.Context, set ...func(*app)) (*lockedScreen, <-chan error) {
	sim := &lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{},
		getenv: func(k string) string { return f.env[k] }, screen: sim}
	for _, s := range set {
		s(a)
	}
	root := a.rootCommand()
	root.SetArgs([]string{"--dir", f.dir})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	return sim, done
}

// TestTUIWiring drives the TUI as cmd/tern wires it: it opens while
// Ollama is down and says how to fix that, connects when Ollama starts,
// answers a prompt, and runs the doctor.
func TestTUIWiring(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: Ollama is "not running"

	f := newFixture(t)
	f.env["OLLAMA_HOST"] = addr
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The TUI tries again every 5s; this test needs no such wait. The
	// screen is tall enough for the doctor's whole report.
	sim, done := f.startTUI(ctx, func(a *app) {
		a.retryEvery = 200 * time.Millisecond
		s := a.screen.(*lockedScreen)
		s.w, s.h = 100, 60
	})

	s := waitScreen(t, sim, "offline", "cannot reach Ollama at http://"+addr, "`ollama serve`")
	if !strings.Contains(strings.SplitN(s, "\n", 2)[0], "offline") {
		t.Errorf("the status bar does not say offline:\n%s", s)
	}

	// Ollama starts on the same address; the TUI finds it on its next try.
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := ollamatest.NewServer(ollamatest.WithListener(l), ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	defer srv.Close()
	waitScreen(t, sim, "qwen3:8b │ tier 0", "new session", "Ollama is back")

	srv.Script(ollamatest.Reply{Content: "Wired **answer**."})
	for _, r := range "hello" {
		sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, sim, "› hello", "Wired answer.")
	waitGone(t, sim, "generating")

	sim.InjectKey(tcell.KeyCtrlT, 0, tcell.ModNone)
	waitScreen(t, sim, "qwen3:8b │ tier 1")

	for _, r := range "/doctor" {
		sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, sim, "Embeddings  ✓ nomic-embed-text:latest", "All checks passed.")

	sim.InjectKey(tcell.KeyCtrlQ, 0, tcell.ModNone)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("tern returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ctrl+Q did not quit")
	}
}

func TestTUINeedsATerminal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, _, errOut := f.tern(t.Context(), "--resume=x")
	if code != 1 || !strings.Contains(errOut, "the TUI needs a terminal") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// typeLine types text into the TUI's prompt and presses Enter.
func typeLine(sim *lockedScreen, text string) {
	for _, r := range text {
		sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
}

// TestTUIIndexAndSearchOffline builds the index and searches it from the
// TUI while Ollama is down: both need only the repository.
func TestTUIIndexAndSearchOffline(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.env["OLLAMA_HOST"] = "127.0.0.1:1"
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUI(ctx)
	waitScreen(t, sim, "offline")

	typeLine(sim, "/search bill")
	waitScreen(t, sim, "no index yet: run /index first")

	typeLine(sim, "/index")
	waitScreen(t, sim, "index: 6 files read", "embeddings, search is lexical only: Ollama is not reachable at")

	typeLine(sim, "/search bill total")
	s := waitScreen(t, sim, "calc/total.go:3-10", "function Total", "Enter put @reference in the prompt")
	if !strings.Contains(s, "for _, x := range xs") {
		t.Errorf("the search pane does not preview the hit:\n%s", s)
	}
	waitDialogKeys(t, sim)
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone) // the reference goes into the prompt
	waitGone(t, sim, "Enter put @reference")
	waitScreen(t, sim, "› @calc/total.go:3-10")

	// The reference is unsent text: the first Ctrl+Q only warns.
	sim.InjectKey(tcell.KeyCtrlQ, 0, tcell.ModNone)
	waitScreen(t, sim, "the prompt holds unsent text; Ctrl+Q again quits without sending")
	quit(t, sim, done)
}

// TestTUIRAG turns RAG on with Ctrl+R and checks that the next prompt's
// request carries the matching code.
func TestTUIRAG(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.mustTern("index")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUI(ctx)
	waitScreen(t, sim, "qwen3:8b │ tier 0", "RAG off")

	sim.InjectKey(tcell.KeyCtrlR, 0, tcell.ModNone)
	waitScreen(t, sim, "RAG on: each prompt carries", "│ RAG on │")

	f.srv.Script(ollamatest.Reply{Content: "It sums the bill."})
	typeLine(sim, "how is a bill added up?")
	waitScreen(t, sim, "It sums the bill.", "RAG: added ")
	reqs := f.srv.Requests()
	if got := retrievedMessage(reqs[len(reqs)-1]); !strings.Contains(got, "func Total(xs []int) int") {
		t.Errorf("with RAG on the request lacks the code:\n%+v", reqs[len(reqs)-1].Messages)
	}

	waitGone(t, sim, "generating") // RAG changes between turns only
	sim.InjectKey(tcell.KeyCtrlR, 0, tcell.ModNone)
	waitScreen(t, sim, "RAG off: prompts carry no retrieved code")
	f.srv.Script(ollamatest.Reply{Content: "Plain."})
	typeLine(sim, "and now?")
	waitScreen(t, sim, "Plain.")
	reqs = f.srv.Requests()
	if got := retrievedMessage(reqs[len(reqs)-1]); got != "" {
		t.Errorf("with RAG off the request still carries code:\n%s", got)
	}

	quit(t, sim, done)
}

// TestTUIOpensSessionsAsAskDoes: the TUI opens its sessions through the
// constructor tern ask uses, so it says what ask says at the start: a
// --ctx above the trained context is lowered, and a model that fell back
// to the text tool protocol in a recent session starts there again.
func TestTUIOpensSessionsAsAskDoes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.TinyTools())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, _ := f.startTUIWith(ctx, 200, 40, "--ctx", "8192")
	waitScreen(t, sim, "--ctx 8192 is above the model's trained context of 4096 tokens; using 4096")
	cancel()

	g := newFixture(t)
	parseErr := ollamatest.Reply{Status: 500, Error: "error parsing tool call: raw='{\"name\": \"list_dir\"', err=unexpected end of JSON input"}
	g.srv.Script(
		parseErr, ollamatest.Reply{Content: `<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>`},
		parseErr, ollamatest.Reply{Content: "Three files."},
	)
	if code, _, errOut := g.tern(t.Context(), "ask", "what is here?"); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	ctx2, cancel2 := context.WithCancel(t.Context())
	defer cancel2()
	sim2, _ := g.startTUIWith(ctx2, 200, 40)
	waitScreen(t, sim2, "using the text tool protocol: in session ")
}
