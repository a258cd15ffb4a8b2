package agent

import (
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestToolStartSaysWhatTheCallIsAbout: each call's start carries its
// subject as the tool words it (a name the model misspelt is mended
// first), so that the TUI needs no argument names.
func TestToolStartSaysWhatTheCallIsAbout(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{
			{Name: "read_file", Args: `{"path":"hello.txt","offset":2,"limit":5}`},
			{Name: "Grep", Args: `{"pattern":"hello","path":"docs"}`},
			{Name: "list_dir", Args: `{}`},
		}},
		ollamatest.Reply{Content: "ok"},
	)
	if err := h.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range h.events {
		if ts, ok := e.(ToolStart); ok {
			got[ts.Name] = ts.Subject
		}
	}
	want := map[string]string{"read_file": "hello.txt:2-6", "grep": `"hello" in docs`, "list_dir": ""}
	for name, subject := range want {
		if s, ok := got[name]; !ok || s != subject {
			t.Errorf("%s: subject %q, want %q (all: %q)", name, s, subject, got)
		}
	}
}
