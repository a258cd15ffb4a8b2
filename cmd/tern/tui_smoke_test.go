package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestTUISmokeInTmux runs the built binary in a real terminal (a tmux
// pane), types into it and reads the pane back: the TUI a user gets.
// It logs the time to the first frame and the idle memory it measured.
func TestTUISmokeInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed, so the TUI smoke test cannot run (.ci/run installs it)")
	}
	bin := buildTern(t)
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{Content: "It is a **demo** repository."},
	)

	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil && args[0] != "kill-server" && args[0] != "has-session" {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	cmdline := fmt.Sprintf("exec env OLLAMA_HOST=%s XDG_CONFIG_HOME=%s HOME=%s %s --dir %s",
		quote(f.srv.URL()), quote(f.env["XDG_CONFIG_HOME"]), quote(f.env["HOME"]), quote(bin), quote(f.dir))
	start := time.Now()
	tm("new-session", "-d", "-s", "tern", "-x", "100", "-y", "30", cmdline)
	t.Cleanup(func() { tm("kill-server") })

	pane := func() string { return tm("capture-pane", "-p", "-t", "tern") }
	waitPane := func(want ...string) string {
		t.Helper()
		deadline := time.Now().Add(patience)
		for {
			s := pane()
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(s, w)
			}
			if ok {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the pane never showed %q:\n%s", want, s)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	waitPane(" tern ", "Ask about the code")
	firstFrame := time.Since(start)
	waitPane("qwen3:8b │ tier 0", "new session")

	tm("send-keys", "-t", "tern", "what is this?", "Enter")
	waitPane("› what is this?", "✓ read_file README.md:1-2", "It is a demo repository.")
	for deadline := time.Now().Add(patience); strings.Contains(pane(), "generating"); {
		if time.Now().After(deadline) {
			t.Fatalf("the turn never ended:\n%s", pane())
		}
		time.Sleep(10 * time.Millisecond)
	}

	pid, _ := strconv.Atoi(strings.TrimSpace(tm("display-message", "-p", "-t", "tern", "#{pane_pid}")))
	rss := rssMiB(pid)

	tm("send-keys", "-t", "tern", "C-t")
	waitPane("qwen3:8b │ tier 1")
	tm("send-keys", "-t", "tern", "?")
	waitPane("═ help ═", "cycle the tool tier")
	tm("send-keys", "-t", "tern", "Escape")
	time.Sleep(100 * time.Millisecond) // let Escape stand alone, not start an Alt sequence
	tm("send-keys", "-t", "tern", "C-q")
	deadline := time.Now().Add(patience)
	for exec.Command(tmux, "-S", sock, "has-session", "-t", "tern").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("Ctrl+Q did not end tern:\n%s", pane())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("first frame %s after starting the pane (process start included); resident memory after a turn %.1f MiB", firstFrame.Round(time.Millisecond), rss)
}

// rssMiB reads a process's resident memory from /proc (0 where there is
// no /proc).
func rssMiB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(rest)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}
