package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ternBinary is the tern binary the tests that run a real process share:
// built once per test process (a build is seconds of CPU), removed by
// TestMain. No test may change the file. It is linked without the symbol
// table and DWARF (-s -w), which no test reads: that halves the link
// (5-6 CPU seconds to 3), which every test of a real process waits for.
var ternBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildTern builds the tern binary, once for all tests, and returns its
// path.
func buildTern(t *testing.T) string {
	t.Helper()
	b := &ternBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "tern-test-bin-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "tern")
		if out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", b.path, ".").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatalf("build: %v", b.err)
	}
	return b.path
}

// removeTernBinary deletes the shared binary, if one was built.
func removeTernBinary() {
	if ternBinary.dir != "" {
		os.RemoveAll(ternBinary.dir)
	}
}

// tmuxTern is the built binary running in a tmux pane of its own server.
type tmuxTern struct {
	t    *testing.T
	tmux string
	sock string
}

// startTmux runs tern with args in a detached tmux pane of w×h cells,
// against the fixture's fake Ollama. It skips the test without tmux.
func startTmux(t *testing.T, f *fixture, w, h int, args ...string) *tmuxTern {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed, so this TUI test cannot run (.ci/run installs it)")
	}
	bin := buildTern(t)
	if f.env["PATH"] == "" {
		f.noLanguageServers()
	}
	tm := &tmuxTern{t: t, tmux: tmux, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	cmdline := fmt.Sprintf("exec env OLLAMA_HOST=%s XDG_CONFIG_HOME=%s HOME=%s", quote(f.srv.URL()), quote(f.env["XDG_CONFIG_HOME"]), quote(f.env["HOME"]))
	if s := f.env["XDG_STATE_HOME"]; s != "" {
		cmdline += " XDG_STATE_HOME=" + quote(s)
	}
	for _, w := range f.wrap {
		cmdline += " " + quote(w)
	}
	cmdline += fmt.Sprintf(" %s --dir %s", quote(bin), quote(f.dir))
	for _, a := range args {
		cmdline += " " + quote(a)
	}
	tm.run("new-session", "-d", "-s", "tern", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmdline)
	t.Cleanup(tm.stop)
	return tm
}

// binaryEnv is the environment of a built tern the test starts: the
// fixture's server, config and home, the test's PATH, and no language
// server unless the test asked for them (withServers).
func (f *fixture) binaryEnv(more ...string) []string {
	if f.env["PATH"] == "" {
		f.noLanguageServers()
	}
	env := append(os.Environ(), "OLLAMA_HOST="+f.srv.URL(), "XDG_CONFIG_HOME="+f.env["XDG_CONFIG_HOME"], "HOME="+f.env["HOME"])
	return append(env, more...)
}

// noLanguageServers switches language servers off in the fixture's user
// config, kept otherwise: the built binary in tmux has the test's PATH,
// where gopls or pyright may be, and a test that did not ask for them
// (withServers) must not start one (gopls's telemetry child outlives it).
func (f *fixture) noLanguageServers() {
	f.t.Helper()
	path := filepath.Join(f.env["XDG_CONFIG_HOME"], "tern", "config.toml")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		f.t.Fatal(err)
	}
	const off = "lsp_enabled = false\n"
	if strings.HasPrefix(string(old), off) {
		return // switched off already: a key twice is an error
	}
	f.config(off + string(old)) // first: a key after a [table] would be the table's
}

// stop closes the pane and waits until tern has exited: it stops what it
// started (a language server writing its cache under the fixture's HOME)
// on its way out, and the test's directories go only after that.
func (tm *tmuxTern) stop() {
	pid, _ := strconv.Atoi(strings.TrimSpace(tm.run("display-message", "-p", "-t", "tern", "#{pane_pid}")))
	tm.run("kill-server")
	for pid > 0 && syscall.Kill(pid, 0) == nil {
		select {
		case <-tm.t.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (tm *tmuxTern) run(args ...string) string {
	out, err := exec.Command(tm.tmux, append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil && args[0] != "kill-server" && args[0] != "has-session" && args[0] != "display-message" {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pane is the pane's text now.
func (tm *tmuxTern) pane() string { return tm.run("capture-pane", "-p", "-t", "tern") }

// keys sends tmux key names or text to the pane.
func (tm *tmuxTern) keys(keys ...string) {
	tm.run(append([]string{"send-keys", "-t", "tern"}, keys...)...)
}

// resize makes the pane w×h cells.
func (tm *tmuxTern) resize(w, h int) {
	tm.run("resize-window", "-t", "tern", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h))
}

// waitPane polls the pane until it shows every want.
func (tm *tmuxTern) waitPane(want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.pane()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the pane never showed %q:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitSettled polls the pane until it shows every want and has stopped
// changing: two captures 50ms apart are the same. A capture taken while
// tern is still drawing a screen can show half of it.
func (tm *tmuxTern) waitSettled(want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	prev := tm.waitPane(want...)
	for {
		time.Sleep(50 * time.Millisecond)
		s := tm.waitPane(want...)
		if s == prev {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the pane never settled:\n%s", s)
		}
		prev = s
	}
}

// answer sends keys to the open dialog once it takes them: a dialog that
// opened by itself passes typing on to the prompt until the keyboard has
// been quiet for a moment, and says so (guardNotice).
func (tm *tmuxTern) answer(keys ...string) {
	tm.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); strings.Contains(tm.pane(), guardNotice); {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the dialog never took keys:\n%s", tm.pane())
		}
		time.Sleep(20 * time.Millisecond)
	}
	tm.keys(keys...)
}

// waitIdle waits until the pane no longer shows a turn at work.
func (tm *tmuxTern) waitIdle() {
	tm.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); strings.Contains(tm.pane(), "generating"); {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the turn never ended:\n%s", tm.pane())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
