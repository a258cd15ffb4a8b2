package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxTern is the built binary running in a tmux pane.
type tmuxTern struct {
	t    *testing.T
	tmux string
	sock string
}

// startTmux builds tern and runs it in a 100×30 tmux pane over f.
func startTmux(t *testing.T, f *fixture) *tmuxTern {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	bin := filepath.Join(t.TempDir(), "tern")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	tt := &tmuxTern{t: t, tmux: tmux, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	cmdline := fmt.Sprintf("exec env OLLAMA_HOST=%s XDG_CONFIG_HOME=%s HOME=%s %s --dir %s",
		quote(f.srv.URL()), quote(f.env["XDG_CONFIG_HOME"]), quote(f.env["HOME"]), quote(bin), quote(f.dir))
	tt.run("new-session", "-d", "-s", "tern", "-x", "100", "-y", "30", cmdline)
	t.Cleanup(func() { tt.run("kill-server") })
	tt.wait("qwen3:8b │ tier 0", "new session")
	return tt
}

func (tt *tmuxTern) run(args ...string) string {
	out, err := exec.Command(tt.tmux, append([]string{"-S", tt.sock}, args...)...).CombinedOutput()
	if err != nil && args[0] != "kill-server" {
		tt.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tt *tmuxTern) pane() string { return tt.run("capture-pane", "-p", "-t", "tern") }

// keys sends keys to the pane; a lone Escape gets a pause so it is not
// read as the start of an Alt sequence.
func (tt *tmuxTern) keys(keys ...string) {
	tt.run(append([]string{"send-keys", "-t", "tern"}, keys...)...)
	time.Sleep(150 * time.Millisecond)
}

// wait returns the pane once it shows every one of want.
func (tt *tmuxTern) wait(want ...string) string {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tt.pane()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the pane never showed %q:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// idle waits for the running turn to end.
func (tt *tmuxTern) idle() {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(tt.pane(), "generating") {
		if time.Now().After(deadline) {
			tt.t.Fatalf("the turn never ended:\n%s", tt.pane())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
