package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestRunningCommandShowsItsOutputAndTime runs the built binary in tmux
// while the model's command runs (it waits for a file the test makes):
// at 120 and at 60 columns the command's line counts its seconds and shows
// its last output lines, and the status bar says it is running the
// command, not "generating".
func TestRunningCommandShowsItsOutputAndTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command",
			Args: `{"command":"echo compiling; echo linking; until test -f go.flag; do sleep 0.05; done; echo finished"}`}}},
		ollamatest.Reply{Content: "Built."},
	)
	tm := startTmux(t, f, 120, 30, "--tier", "2", "--yes")
	tm.waitPane("qwen3:8b │ tier 2")
	tm.keys("build it", "Enter")
	elapsed := regexp.MustCompile(`(?s)▸ run_command .*? · [1-9][0-9]*s\n`)
	for _, w := range []int{120, 60} {
		tm.resize(w, 30)
		var s string
		for deadline := time.Now().Add(30 * time.Second); ; {
			s = tm.pane()
			rows := strings.Split(s, "\n")
			if len([]rune(rows[0])) <= w && elapsed.MatchString(s) && strings.Contains(s, "│ compiling") &&
				strings.Contains(s, "│ linking") && strings.Contains(rows[0], "running run_command") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("at %d columns the running command shows no time, output or status:\n%s", w, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("a command running, at %d columns:\n%s", w, s)
		if strings.Contains(strings.Split(s, "\n")[0], "generating") {
			t.Errorf("the status bar says generating while the command runs:\n%s", s)
		}
	}
	if err := os.WriteFile(filepath.Join(f.dir, "go.flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := tm.waitPane("Built.", "✓ run_command $ echo compiling")
	if strings.Contains(s, "│ linking") {
		t.Errorf("the output tail stayed after the command ended:\n%s", s)
	}
}
