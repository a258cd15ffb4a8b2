package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// A server that sends the same call id in every reply: tern numbers the
// calls itself, so the history carries one id per call and the TUI keeps
// a line for each.
func TestTUIRepeatedServerCallIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_0", Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{ID: "call_0", Name: "grep", Args: `{"pattern":"println"}`}}},
		ollamatest.Reply{Content: "It prints hi."},
	)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUIWith(ctx, 120, 40)
	waitScreen(t, sim, "qwen3:8b │ tier 0")
	typeLine(sim, "what does it print?")
	s := waitScreen(t, sim, "It prints hi.")
	if !strings.Contains(s, "✓ read_file README.md") || !strings.Contains(s, "✓ grep") {
		t.Errorf("a call's line was overwritten by a later one with the same id:\n%s", s)
	}
	quit(t, sim, done)

	reqs := f.srv.Requests()
	ids := map[string]bool{}
	for _, m := range reqs[len(reqs)-1].Messages {
		for _, c := range m.ToolCalls {
			if ids[c.ID] {
				t.Errorf("id %q sent for two calls", c.ID)
			}
			ids[c.ID] = true
		}
		if m.Role == "tool" && !ids[m.ToolCallID] {
			t.Errorf("a result answers %q, which no call has", m.ToolCallID)
		}
	}
	if len(ids) != 2 {
		t.Errorf("want 2 distinct call ids in the history, got %v", ids)
	}
}

// A resumed session shows each call as it was shown live (the tool's own
// summary, failures marked), and a reply the user cancelled is marked.
func TestTUIResumeShowsCallsAndCancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"main.go","offset":1,"limit":2}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"missing.go"}`}}},
		ollamatest.Reply{Content: "It prints hi."},
	)
	code, _, live := f.tern(t.Context(), "ask", "what does main.go print?")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, live)
	}
	_, list, _ := f.tern(t.Context(), "sessions")
	id := strings.Fields(strings.Split(list, "\n")[1])[0]

	// A second turn, cancelled while the answer streams.
	chunks := []string{"Let me", " think"}
	for range 200 {
		chunks = append(chunks, " more")
	}
	// Cancelled once the reply's first words are out, while the rest
	// still streams (200 chunks 100 ms apart).
	f.srv.Script(ollamatest.Reply{Chunks: chunks, ChunkDelay: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut syncBuffer
	go func() {
		for !strings.Contains(out.String(), "Let me") && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	args := []string{"ask", "--dir", f.dir, "--resume", id, "and why?"}
	if code := Main(ctx, args, strings.NewReader(""), &out, &errOut, func(k string) string { return f.env[k] }); code != exitCanceled {
		t.Fatalf("exit %d, want 130:\n%s", code, errOut.String())
	}

	tctx, tcancel := context.WithCancel(t.Context())
	defer tcancel()
	sim, done := f.startTUIWith(tctx, 120, 40, "--resume", id)
	s := waitScreen(t, sim, "It prints hi.", "[cancelled: the user stopped this reply]")
	for _, want := range []string{"✓ read_file main.go:1-2", "✗ read_file missing.go — "} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed session lacks %q (live: %q):\n%s", want, live, s)
		}
	}
	t.Logf("live:\n%s\nresumed:\n%s", live, s)
	if strings.Contains(s, "read_file 1\t") || strings.Contains(s, "read_file     1") {
		t.Errorf("a call's line shows its output's first line:\n%s", s)
	}
	quit(t, sim, done)
}
