package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ternhq/tern/tools/sandbox"
)

// TestMain lets the test binary act as tern's reaper, as tern's own main
// does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ReaperFlag {
		os.Exit(RunReaper(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperFlag {
		os.Exit(sandbox.RunHelper(os.Args[2:]))
	}
	if cmd := os.Getenv(holdEnv); cmd != "" {
		os.Exit(holdCommand(cmd))
	}
	os.Exit(m.Run())
}

// testReaper returns the binary that runs commands as a subreaper: this
// test binary.
func testReaper(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("child subreapers are Linux only")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// holdEnv makes the test binary stand in for tern: it runs one command
// through run_command with the reaper, and is then killed by the test.
const holdEnv = "TERN_TEST_HOLD_COMMAND"

func holdCommand(command string) int {
	exe, _ := os.Executable()
	ws, err := NewWorkspace(os.Getenv("TERN_TEST_HOLD_DIR"))
	if err != nil {
		return 2
	}
	tool, err := NewRunCommand(ws, nil, CommandPolicy{Reaper: exe})
	if err != nil {
		return 2
	}
	tool.Run(context.Background(), Input{Args: []byte(`{"command":` + quote(command) + `,"timeout":100}`)})
	return 0
}

// TestReaperOutlivesNoTern: when tern is killed with SIGKILL, it cannot
// stop anything; the reaper's parent-death signal does, for the whole
// tree, escaped processes included.
func TestReaperOutlivesNoTern(t *testing.T) {
	exe := testReaper(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	command := `echo $$ > $PIDS; setsid -f sh -c 'echo $$ >> $PIDS; exec sleep 300 >/dev/null 2>&1'; (sleep 300 & echo $! >> $PIDS); sleep 300`
	hold := exec.Command(exe)
	hold.Env = append(os.Environ(), holdEnv+"="+command, "TERN_TEST_HOLD_DIR="+t.TempDir(), "PIDS="+pidFile)
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(pidFile)
		if len(strings.Fields(string(data))) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			hold.Process.Kill()
			t.Fatalf("the command did not start: %q", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	hold.Process.Signal(syscall.SIGKILL)
	hold.Wait()
	assertGone(t, pids(t, pidFile))
}

// TestReaperKilledByItsCommand: a command that starts a daemon and then
// kills its own reaper (kill -9 $PPID) leaves nothing running: the
// daemon comes back to tern, a subreaper too, which stops it.
func TestReaperKilledByItsCommand(t *testing.T) {
	exe := testReaper(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("PIDS", pidFile)
	tool, err := NewRunCommand(newFixture(t), nil, CommandPolicy{Reaper: exe})
	if err != nil {
		t.Fatal(err)
	}
	command := `echo $$ > $PIDS; setsid -f sh -c 'echo $$ >> $PIDS; exec sleep 300 >/dev/null 2>&1'; (sleep 300 & echo $! >> $PIDS); ` +
		`while [ $(wc -l < $PIDS) -lt 3 ]; do sleep 0.01; done; kill -9 $PPID; sleep 300`
	r := call(t, tool, `{"command":`+quote(command)+`,"timeout":30}`, 0)
	t.Logf("result: %s", r.Output)
	assertGone(t, pids(t, pidFile))
}
