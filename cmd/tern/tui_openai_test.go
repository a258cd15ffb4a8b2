package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/openaitest"
)

// TestTUIOpenAIInTmux runs the built binary in a tmux pane against a fake
// llama-server found through --host alone: the TUI connects, a turn with
// a tool call streams, and the window shown is the server's.
func TestTUIOpenAIInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed, so the TUI smoke test cannot run (.ci/run installs it)")
	}
	bin := buildTern(t)
	f, srv := newOpenAIFixture(t, openaitest.WithModel("qwen3-8b"), openaitest.WithWindow(12288))
	srv.Script(
		openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
		openaitest.Reply{Content: "It is a **demo** repository."},
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
	cmdline := fmt.Sprintf("exec env -u OLLAMA_HOST XDG_CONFIG_HOME=%s HOME=%s %s --dir %s --host %s",
		quote(f.env["XDG_CONFIG_HOME"]), quote(f.env["HOME"]), quote(bin), quote(f.dir), quote(srv.URL()))
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

	waitPane("qwen3-8b │ tier 0")
	tm("send-keys", "-t", "tern", "what is this?", "Enter")
	s := waitPane("› what is this?", "✓ read_file README.md:1-2", "It is a demo repository.")
	if !strings.Contains(s, "/12k tok") {
		t.Errorf("the status bar does not show the server's 12288-token window:\n%s", s)
	}
	chats := srv.Chats()
	if len(chats) != 2 || len(chats[0].Tools) == 0 {
		t.Errorf("%d chat requests reached the server", len(chats))
	}
	tm("send-keys", "-t", "tern", "C-q")
	deadline := time.Now().Add(patience)
	for exec.Command(tmux, "-S", sock, "has-session", "-t", "tern").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("Ctrl+Q did not end tern:\n%s", pane())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
