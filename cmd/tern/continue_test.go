package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/session"
)

// TestContinue: tern ask -c and tern -c continue the workspace's latest
// session; with none yet they start one and say so; -c with --resume is a
// usage error.
func TestContinue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "One."})
	_, errOut := f.mustTern("ask", "-c", "first")
	if !strings.Contains(errOut, "no session to continue in this workspace yet; this is a new one") {
		t.Errorf("ask -c with no session:\n%s", errOut)
	}
	f.srv.Script(ollamatest.Reply{Content: "Two."})
	f.mustTern("ask", "second")
	// A session without a turn, as a TUI opened and closed without a word
	// leaves, is newer but has nothing to continue: -c took it, and
	// started over.
	store, err := session.OpenWorkspace(t.Context(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Create(t.Context(), "qwen3:8b", f.dir); err != nil {
		t.Fatal(err)
	}
	store.Close()
	f.srv.Script(ollamatest.Reply{Content: "Three."})
	f.mustTern("ask", "--continue", "third")
	reqs := f.srv.Requests()
	var said []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" {
			said = append(said, m.Content)
		}
	}
	if len(said) != 2 || !strings.Contains(said[0], "second") || !strings.Contains(said[1], "third") {
		t.Errorf("ask --continue sent the user's messages %q; want the latest session's, then the new one", said)
	}
	out, _ := f.mustTern("sessions")
	if n := strings.Count(out, "\n") - 1; n != 3 {
		t.Errorf("%d sessions, want 3 (one empty):\n%s", n, out)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, _ := f.startTUIWith(ctx, 120, 40, "-c")
	screen := waitScreen(t, sim, "resumed session", "› second", "› third", "Three.")
	if strings.Contains(screen, "› first") {
		t.Errorf("tern -c opened the older session:\n%s", screen)
	}

	for _, args := range [][]string{{"ask", "-c", "--resume", "x", "hi"}, {"-c", "--resume", "x"}} {
		code, _, errOut := f.tern(t.Context(), args...)
		if code != exitUsage || !strings.Contains(errOut, "--continue and --resume exclude each other") {
			t.Errorf("%q: exit %d:\n%s", args, code, errOut)
		}
	}
}
