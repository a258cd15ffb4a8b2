package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestAskSurvivesHostileStreams: a server that never answers, falls
// silent or never stops cannot hang tern ask; each ends the run with a
// clear message, and what arrived is kept.
func TestAskSurvivesHostileStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  ollamatest.Reply
		config string
		args   []string
		want   string
	}{
		{name: "no response headers", reply: ollamatest.Reply{NoHeaders: true},
			config: "[stream]\nheader_timeout = \"1s\"\n", want: "sent no response headers within 1s"},
		{name: "silent stream", reply: ollamatest.Reply{Content: "one two three four", StallAfter: 2},
			config: "[stream]\nidle_timeout = \"1s\"\n", want: "the reply stream sent nothing for 1s"},
		{name: "endless stream", reply: ollamatest.Reply{Content: "start", Endless: true},
			config: "[stream]\nmax_reply_bytes = 8192\n", want: "the reply passed 8192 bytes"},
		// A small window keeps num_predict, and the stream to twice it, short.
		{name: "endless past num_predict", reply: ollamatest.Reply{Content: "start", Endless: true},
			args: []string{"--ctx", "4096"}, want: "far past num_predict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.config != "" {
				dir := filepath.Join(f.env["XDG_CONFIG_HOME"], "tern")
				os.MkdirAll(dir, 0o755)
				if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f.srv.Script(tt.reply)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			began := time.Now()
			code, _, stderr := f.tern(ctx, append([]string{"ask"}, append(tt.args, "hi")...)...)
			if ctx.Err() != nil {
				t.Fatalf("tern ask hung for %s", time.Since(began))
			}
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant it to say %q", code, stderr, tt.want)
			}
		})
	}
}

// TestAskBadConfigLimits: limits out of range are refused with the key.
func TestAskBadConfigLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(f.env["XDG_CONFIG_HOME"], "tern")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[stream]\nidle_timeout = \"1ms\"\n"), 0o644)
	code, _, stderr := f.tern(t.Context(), "ask", "hi")
	if code == 0 || !strings.Contains(stderr, "stream.idle_timeout must be between 1s and 24h") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestAskNonObjectArguments: a call whose arguments are a string, a number
// or a list is answered with a correction the model can act on; the turn
// goes on, and the next request carries the call and its result.
func TestAskNonObjectArguments(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`"README.md"`:   "A demo repository", // a bare string fills the one required argument
		`7`:             "must be a JSON object",
		`["README.md"]`: "must be a JSON object",
		`null`:          "read_file needs path",
	} {
		t.Run(raw, func(t *testing.T) {
			f := newFixture(t)
			f.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", RawArgs: raw}}},
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
				ollamatest.Reply{Content: "It is a demo."},
			)
			code, out, stderr := f.tern(t.Context(), "ask", "what is this repo?")
			if code != 0 || !strings.Contains(out, "It is a demo.") {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			recs := f.srv.Requests()
			if len(recs) != 3 {
				t.Fatalf("%d requests", len(recs))
			}
			msgs := recs[1].Messages
			last := msgs[len(msgs)-1]
			if last.Role != "tool" || !strings.Contains(last.Content, want) {
				t.Errorf("the model was not told: %+v", last)
			}
		})
	}
}

// TestAskGrepNamedPipe: grep pointed at a FIFO answers at once instead of
// hanging the turn.
func TestAskGrepNamedPipe(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.dir, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"x","path":"pipe"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"demo"}`}}},
		ollamatest.Reply{Content: "Found it."},
	)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	code, out, stderr := f.tern(ctx, "ask", "search")
	if code != 0 || !strings.Contains(out, "Found it.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	msgs := f.srv.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "named pipe") {
		t.Errorf("grep result: %q", last.Content)
	}
}
