package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/models/ollamatest"
)

// TestBinaryNothingOutlivesTern drives the real binary: the model runs a
// command that escapes its process group with setsid -f, setsid, a double
// fork and nohup, and tern is then
// hung up on, terminated or killed. Nothing the command started may be
// left running.
func TestBinaryNothingOutlivesTern(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("child subreapers are Linux only")
	}
	bin := buildTern(t)
	// setsid -f, setsid in the background, and a double-forked daemon
	// (its parent exits at once, so it is no one's child but the
	// reaper's).
	const command = `echo $$ > $PIDS; setsid -f sh -c 'echo $$ >> $PIDS; exec sleep 300 >/dev/null 2>&1'; (setsid sleep 300 & echo $! >> $PIDS); ` +
		`(setsid sh -c 'echo $$ >> $PIDS; exec sleep 300 </dev/null >/dev/null 2>&1' &); nohup sleep 300 >/dev/null 2>&1 & echo $! >> $PIDS; sleep 300`
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			withoutSandbox(t, f)
			f.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":` + strconv.Quote(command) + `,"timeout":100}`}}},
				ollamatest.Reply{Content: "done"},
			)
			pidFile := filepath.Join(t.TempDir(), "pids")
			cmd := exec.Command(bin, "ask", "--yes", "--tier", "2", "--dir", f.dir, "run the server")
			cmd.Env = f.binaryEnv("PIDS=" + pidFile)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(patience)
			var pids []int
			for len(pids) < 5 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the command did not start; stderr:\n%s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
				pids = readPids(pidFile)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(patience):
				cmd.Process.Kill()
				t.Fatalf("tern did not exit after %s; stderr:\n%s", sig, stderr.String())
			}
			deadline = time.Now().Add(5 * time.Second)
			for _, pid := range pids {
				for running(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if running(pid) {
					t.Errorf("process %d outlived tern after %s", pid, sig)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// withoutSandbox turns the command sandbox off in the fixture's user
// config, for a test that reads the pids its command writes: in the
// sandbox's PID namespace they are numbered its own way. The sandboxed
// case is TestBinarySandboxedNothingOutlivesTern.
func withoutSandbox(t *testing.T, f *fixture) { sandboxMechanism(t, f, "off") }

// sandboxMechanism sets [sandbox] mechanism in the fixture's user config.
func sandboxMechanism(t *testing.T, f *fixture, mechanism string) {
	t.Helper()
	dir := filepath.Join(f.env["XDG_CONFIG_HOME"], "tern")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[sandbox]\nmechanism = \""+mechanism+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBinarySandboxedNothingOutlivesTern: under bubblewrap, what a command
// started (setsid -f, a background job, nohup) is found by a marker in its
// command line, pids being the PID namespace's own; none outlives tern
// killed with SIGKILL.
func TestBinarySandboxedNothingOutlivesTern(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("bubblewrap is Linux only")
	}
	testenv.Program(t, "bwrap", "apt-get install bubblewrap")
	bin := buildTern(t)
	f := newFixture(t)
	sandboxMechanism(t, f, "bubblewrap")
	marker := "299." + strconv.Itoa(os.Getpid())
	command := `setsid -f sh -c 'exec sleep ` + marker + `'; (sleep ` + marker + ` &); nohup sleep ` + marker + ` >/dev/null 2>&1 & sleep ` + marker
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":` + strconv.Quote(command) + `,"timeout":100}`}}},
		ollamatest.Reply{Content: "done"},
	)
	cmd := exec.Command(bin, "ask", "--yes", "--tier", "2", "--dir", f.dir, "run the server")
	cmd.Env = f.binaryEnv()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(patience)
	for len(withMarker(marker)) < 4 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the command did not start (%d processes); stderr:\n%s", len(withMarker(marker)), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for len(withMarker(marker)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := withMarker(marker); len(left) > 0 {
		t.Errorf("processes %v outlived tern", left)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// withMarker lists the running processes whose command line holds marker.
func withMarker(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !running(pid) {
			continue
		}
		if data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(data), marker) {
			out = append(out, pid)
		}
	}
	return out
}

func readPids(path string) []int {
	data, _ := os.ReadFile(path)
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// running reports whether process pid runs (a zombie does not count).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
