package main

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestAllowCommandsStartingWith answers a command's approval with p: the
// commands that start the same way run without asking for the rest of the
// session, another command asks again, and a destructive one is never
// offered p. The dialog is read at 60 columns, then at 120.
func TestAllowCommandsStartingWith(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"go env GOOS"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"go env GOARCH"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"go version"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`}}},
		ollamatest.Reply{Content: "Checked."},
	)
	tm := startTmux(t, f, 60, 30, "--tier", "2")
	tm.waitPane("qwen3:8b │ tier 2")
	tm.keys("check the toolchain", "Enter")
	s := tm.waitPane("Allow run_command?", "p allow commands starting with", "`go env` this session")
	t.Logf("at 60 columns:\n%s", s)
	tm.answer("p")
	// go env GOARCH runs without asking: the next dialog is go version's.
	tm.waitPane("Allow run_command?", "$ go version")
	tm.resize(120, 30)
	s = tm.waitPane("p allow commands starting with `go version` this session")
	tm.answer("y")
	s = tm.waitPane("Allow run_command? DESTRUCTIVE", "rm -rf build")
	if strings.Contains(s, "starting with") {
		t.Errorf("a destructive command offers p:\n%s", s)
	}
	tm.answer("n")
	tm.waitPane("Reason for the model")
	tm.keys("Enter")
	tm.waitPane("Checked.", "allowed commands starting with `go env` for the rest of this session")
	reqs := f.srv.Requests()
	if n := len(reqs); n != 5 {
		t.Fatalf("%d requests, want 5", n)
	}
	for i, want := range []string{"GOOS", "GOARCH", "go version", "denied"} {
		msgs := reqs[i+1].Messages
		if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "exit code 0") && i < 3 || i == 3 && !strings.Contains(got, want) {
			t.Errorf("call %d (%s) answered %q", i+1, want, got)
		}
	}
}
