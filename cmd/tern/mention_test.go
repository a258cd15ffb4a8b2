package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// @path in a tern ask prompt attaches the file (a directory: its
// listing) before the first request, as a read_file call of its own;
// a mention that names no file stays as written.
func TestAskMentionAttachesFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(f.dir, "sub", "util.go"), []byte("package sub\n"), 0o644)
	f.srv.Script(ollamatest.Reply{Content: "It prints hi."})
	code, out, errOut := f.tern(t.Context(), "ask", "--json", "what does @main.go print? see also @sub/, @missing.go and ask @bob")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	req := f.srv.Requests()[0]
	var roles []string
	var results string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
		if m.Role == "tool" {
			results += m.Content
		}
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,tool" {
		t.Errorf("the first request's messages are %s; want the prompt, then the attaching calls and their results", got)
	}
	if !strings.Contains(results, `func main() { println("hi") }`) || !strings.Contains(results, "util.go") {
		t.Errorf("the attachments lack main.go's code or sub/'s listing:\n%s", results)
	}
	if strings.Contains(results, "secret") {
		t.Errorf("more was attached than mentioned:\n%s", results)
	}
	var starts []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		json.Unmarshal([]byte(l), &ev)
		switch ev["type"] {
		case "tool_start":
			starts = append(starts, ev["name"].(string)+" "+ev["repair"].(string))
		case "notice":
			if text := ev["text"].(string); strings.Contains(text, "@") {
				starts = append(starts, "notice: "+text)
			}
		}
	}
	want := []string{"notice: @missing.go is not attached: missing.go does not exist", "read_file mention", "list_dir mention"}
	if len(starts) != len(want) {
		t.Fatalf("events %q, want %q", starts, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(starts[i], w) {
			t.Errorf("event %d = %q, want %q", i, starts[i], w)
		}
	}

	// An attached file counts as read: the model may edit it at once.
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}},
		ollamatest.Reply{Content: "Done."})
	if code, _, errOut := f.tern(t.Context(), "ask", "--yes", "--tier", "1", "say hello in @main.go"); code != 0 || !strings.Contains(f.read("main.go"), "hello") {
		t.Errorf("exit %d, main.go %q:\n%s", code, f.read("main.go"), errOut)
	}
}

// The shell completes @path in tern ask's prompt from the repository's
// files, a directory at a time; bash, which splits words at @, sends the
// @ as a word of its own.
func TestAskMentionCompletion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.dir, "cmd", "tern"), 0o755)
	os.WriteFile(filepath.Join(f.dir, "cmd", "tern", "ask.go"), []byte("package main\n"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "ask", "explain", "@ma"}, "@main.go\n:4\n"},
		{[]string{"__complete", "ask", "@c"}, "@cmd/\n:6\n"},
		{[]string{"__complete", "ask", "@cmd/tern/"}, "@cmd/tern/ask.go\n:4\n"},
		{[]string{"__complete", "ask", "explain", "@", "cmd/"}, "cmd/tern/\n:6\n"},
		{[]string{"__complete", "ask", "@sec"}, ":4\n"}, // .gitignore'd
	} {
		_, out, _ := f.tern(t.Context(), tt.args...)
		if out != tt.want {
			t.Errorf("tern %q: %q, want %q", tt.args, out, tt.want)
		}
	}
}

// In the TUI (the built binary in tmux): @ and the start of a path lists
// the repository's matching files under the prompt, Tab completes, the
// sent prompt attaches the file; after an edit /diff shows what the
// session changed. Outside git /diff says why it cannot.
func TestTUIMentionAndDiffInTmux(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.dir, "cmd", "tern"), 0o755)
	os.WriteFile(filepath.Join(f.dir, "cmd", "tern", "main_test.go"), []byte("package main\n"), 0o644)
	f.gitInit()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}},
		ollamatest.Reply{Content: "Changed the greeting."},
	)
	tm := startTmux(t, f, 120, 40, "--tier", "1", "--yes")
	tm.waitPane("qwen3:8b │ tier 1")
	tm.keys("-l", "say hello in @ma")
	tm.waitPane("@main.go", "(Tab completes)")
	tm.keys("Tab")
	tm.waitPane("say hello in @main.go")
	tm.keys("-l", "and @cm")
	tm.keys("Tab")
	tm.waitPane("and @cmd/", "@cmd/tern/   (Tab completes)")
	tm.keys("Tab")
	tm.waitPane("and @cmd/tern/")
	tm.keys("Tab")
	tm.waitPane("and @cmd/tern/main_test.go")
	tm.keys("Enter")
	s := tm.waitPane("Changed the greeting.", "✓ read_file main.go", "✓ read_file cmd/tern/main_test.go")
	if req := f.srv.Requests()[0]; !strings.Contains(req.Messages[len(req.Messages)-2].Content, `println("hi")`) {
		t.Errorf("the first request lacks the attached main.go:\n%+v", req.Messages)
	}
	tm.waitIdle()

	tm.keys("-l", "/diff")
	tm.keys("Enter")
	s = tm.waitPane("diff since this session's checkpoint: 1 file changed, +1 −1",
		`-func main() { println("hi") }`, `+func main() { println("hello") }`)
	t.Logf("after /diff:\n%s", s)
	code, out, errOut := f.tern(t.Context(), "diff")
	if code != 0 || !strings.Contains(out, "--- a/main.go\n+++ b/main.go\n") || !strings.Contains(out, `+func main() { println("hello") }`) {
		t.Errorf("tern diff: exit %d\n%s%s", code, out, errOut)
	}
}

// Outside git there is no checkpoint, and /diff and tern diff say why.
func TestDiffOutsideGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, _, errOut := f.tern(t.Context(), "diff")
	if code != exitError || !strings.Contains(errOut, "diff is unavailable: the workspace is not in a git repository") {
		t.Errorf("tern diff: exit %d, stderr %q", code, errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUIWith(ctx, 120, 30)
	waitScreen(t, sim, "qwen3:8b │ tier 0")
	typeLine(sim, "/diff")
	waitScreen(t, sim, "diff: unavailable: the workspace is not in a git repository")
	quit(t, sim, done)
}
