package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/session"
)

// latestSession returns the ID of the workspace's last session.
func latestSession(t *testing.T, dir string) string {
	t.Helper()
	st, err := session.OpenWorkspace(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Latest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// assertCallsAnswered fails unless every tool call in a request is
// followed by its result.
func assertCallsAnswered(t *testing.T, msgs []api.Message) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			for id := range open {
				t.Errorf("call %s has no result before the next reply", id)
			}
			open = map[string]bool{}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		case "tool":
			delete(open, m.ToolCallID)
		case "user":
			for id := range open {
				t.Errorf("call %s has no result before the next prompt", id)
			}
			open = map[string]bool{}
		}
	}
}

// TestAskCancelledCallKeepsHistory: Ctrl+C while a command runs leaves a
// session whose every call has a result, so resuming it sends a valid
// history.
func TestAskCancelledCallKeepsHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"touch started && sleep 30"}`}}})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		// Cancel once the command runs, whatever the machine's load.
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(f.dir, "started")); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	code, _, stderr := f.tern(ctx, "ask", "--yes", "--tier", "2", "run it")
	if code != 130 {
		t.Fatalf("exit %d, want 130 (cancelled)\n%s", code, stderr)
	}
	id := latestSession(t, f.dir)
	f.srv.Script(ollamatest.Reply{Content: "Resumed."})
	code, out, stderr := f.tern(t.Context(), "ask", "--resume", id, "go on")
	if code != 0 || !strings.Contains(out, "Resumed.") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
	}
	msgs := f.srv.Requests()[1].Messages
	assertCallsAnswered(t, msgs)
	found := false
	for _, m := range msgs {
		found = found || m.Role == "tool" && strings.Contains(m.Content, "Cancelled by the user")
	}
	if !found {
		t.Errorf("the cancelled command's result is not in the resumed history: %+v", msgs)
	}
}

// TestBinaryKilledKeepsHistory: kill -9 of tern while a reply streams
// loses at most the last moment of its text, and while a command runs
// leaves a call that the resumed session answers as interrupted.
func TestBinaryKilledKeepsHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("signals")
	}
	bin := buildTern(t)
	start := func(f *fixture, args ...string) (*exec.Cmd, *syncBuffer) {
		cmd := exec.Command(bin, append(args, "--dir", f.dir)...)
		cmd.Env = f.binaryEnv()
		var stdout syncBuffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stdout
	}
	waitFor := func(what string, ok func() bool) {
		deadline := time.Now().Add(patience)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	t.Run("streaming reply", func(t *testing.T) {
		f := newFixture(t)
		words := make([]string, 400)
		for i := range words {
			words[i] = " w" + strconv.Itoa(i)
		}
		f.srv.Script(ollamatest.Reply{Chunks: words, ChunkDelay: 10 * time.Millisecond})
		cmd, stdout := start(f, "ask", "talk")
		waitFor("the reply to stream", func() bool { return strings.Count(stdout.String(), " w") > 100 })
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		shown := strings.TrimSpace(stdout.String())

		f.srv.Script(ollamatest.Reply{Content: "Resumed."})
		code, out, stderr := f.tern(t.Context(), "ask", "--resume", latestSession(t, f.dir), "go on")
		if code != 0 || !strings.Contains(out, "Resumed.") {
			t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
		}
		msgs := f.srv.Requests()[1].Messages
		var kept string
		for _, m := range msgs {
			if m.Role == "assistant" && strings.Contains(m.Content, "[interrupted") {
				kept = m.Content
			}
		}
		text, _, _ := strings.Cut(kept, "\n[interrupted")
		// Saved twice a second, at 100 words a second: at most about 50
		// words behind what was on the screen.
		if !strings.HasPrefix(strings.Join(words, ""), text) || strings.Count(shown, " w")-strings.Count(text, " w") > 60 {
			t.Errorf("kept %d words of the %d shown:\nkept %q", strings.Count(text, " w"), strings.Count(shown, " w"), kept)
		}
	})

	t.Run("running command", func(t *testing.T) {
		f := newFixture(t)
		pidFile := filepath.Join(t.TempDir(), "pid")
		f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command",
			Args: `{"command":"echo $$ > ` + pidFile + `; sleep 30"}`}}})
		withoutSandbox(t, f)
		cmd, _ := start(f, "ask", "--yes", "--tier", "2", "run it")
		waitFor("the command to start", func() bool { return len(readPids(pidFile)) > 0 })
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		f.srv.Script(ollamatest.Reply{Content: "Resumed."})
		code, out, stderr := f.tern(t.Context(), "ask", "--resume", latestSession(t, f.dir), "go on")
		if code != 0 || !strings.Contains(out, "Resumed.") {
			t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
		}
		msgs := f.srv.Requests()[1].Messages
		assertCallsAnswered(t, msgs)
		found := false
		for _, m := range msgs {
			found = found || m.Role == "tool" && strings.Contains(m.Content, "interrupted")
		}
		if !found {
			t.Errorf("the killed call has no interrupted result: %+v", msgs)
		}
		for _, pid := range readPids(pidFile) {
			deadline := time.Now().Add(patience)
			for running(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if running(pid) {
				t.Errorf("the command %d outlived tern", pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}
