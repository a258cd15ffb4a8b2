package main

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// Server failures reach the user with what to do, not raw: a crashed
// runner and a busy server are retried once, with a notice, and a second
// failure is one line that says what to try.
func TestAskServerErrorsHaveHints(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		reply ollamatest.Reply
		want  []string
	}{
		{"crashed runner", ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerTerminated}, []string{
			"tern: Ollama's model runner crashed (llama runner process has terminated: exit status 2); retrying once",
			"the same again when retried). Ollama's server log says why", "try a smaller --ctx or model"}},
		{"busy", ollamatest.Reply{Status: 503, Error: "server busy, please try again.  maximum pending requests exceeded"}, []string{
			"tern: Ollama is busy (too many requests queued); retrying once",
			"run again when it is free", "OLLAMA_MAX_QUEUE"}},
		{"other 500", ollamatest.Reply{Status: 500, Error: "unexpected server status: 1"}, []string{
			"tern: ollama chat qwen3:8b: 500 Internal Server Error: unexpected server status: 1: an error inside Ollama, not tern's. Ollama's server log says why", "`tern doctor` checks"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.srv.Script(tt.reply, tt.reply, tt.reply)
			code, _, errOut := f.tern(t.Context(), "ask", "hi")
			for _, w := range tt.want {
				if code != exitError || !strings.Contains(errOut, w) {
					t.Errorf("exit %d, stderr lacks %q:\n%s", code, w, errOut)
				}
			}
			last := strings.TrimSpace(errOut)
			if i := strings.LastIndex(last, "\n"); i >= 0 {
				last = last[i+1:]
			}
			if !strings.HasPrefix(last, "tern: ollama chat qwen3:8b: ") {
				t.Errorf("the failure is not one last line:\n%s", errOut)
			}
		})
	}
}
