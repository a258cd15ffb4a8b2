package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestAlwaysAllowSurvivesReconnect: "a" in the approval dialog allows the
// tool for the rest of the session, and Ollama going away and coming back
// (a reconnect, a new agent for the same session) does not forget it.
func TestAlwaysAllowSurvivesReconnect(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	srv := ollamatest.NewServer(ollamatest.WithListener(l), ollamatest.WithModels(ollamatest.Qwen3()))
	defer func() { srv.Close() }()
	f := newFixture(t)
	f.env["OLLAMA_HOST"] = addr
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.retry = 200 * time.Millisecond // the TUI's 5s between tries is not this test's subject
	sim, done := f.startTUIWith(ctx, 120, 40, "--tier", "1")
	waitScreen(t, sim, "qwen3:8b │ tier 1")

	write := func(name string) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"` + name + `","content":"x\n"}`}}}
	}
	srv.Script(write("a.txt"), ollamatest.Reply{Content: "Wrote a."})
	typeLine(sim, "write a.txt")
	waitScreen(t, sim, "Allow write_file?", "always allow write_file this session")
	pressUntilGone(t, sim, 'a', "Allow write_file?")
	waitScreen(t, sim, "Wrote a.", "allowed write_file for the rest of this session")
	waitGone(t, sim, "generating")

	// Ollama goes away; the next prompt finds it gone.
	srv.Close()
	typeLine(sim, "still there?")
	waitScreen(t, sim, "Ollama stopped answering; tern reconnects to session")
	// It comes back on the same address, and the TUI reconnects.
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv = ollamatest.NewServer(ollamatest.WithListener(l), ollamatest.WithModels(ollamatest.Qwen3()))
	waitScreen(t, sim, "resumed session") // the first was a new one

	srv.Script(write("b.txt"), ollamatest.Reply{Content: "Wrote b."})
	typeLine(sim, "write b.txt")
	screen := waitScreen(t, sim, "Wrote b.")
	if strings.Contains(screen, "Allow write_file?") {
		t.Errorf("write_file asked again after the reconnect:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); err != nil {
		t.Errorf("b.txt was not written: %v", err)
	}

	quit(t, sim, done)
}

// pressUntilGone presses r until text leaves the screen: a dialog may
// ignore keys in its first moments (so that typing cannot answer it).
func pressUntilGone(t *testing.T, sim *lockedScreen, r rune, text string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for strings.Contains(sim.snapshot(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("%q did not close it:\n%s", r, sim.snapshot())
		}
		sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end) && strings.Contains(sim.snapshot(), text); {
			time.Sleep(20 * time.Millisecond)
		}
	}
}
