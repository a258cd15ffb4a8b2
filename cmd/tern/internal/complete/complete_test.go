package complete

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// newRoot is a command tree with the flags and commands tern completes.
func newRoot(src Sources) *cobra.Command {
	root := &cobra.Command{Use: "tern", RunE: func(*cobra.Command, []string) error { return nil }}
	f := root.PersistentFlags()
	for _, name := range []string{"model", "tool-mode", "backend", "resume"} {
		f.String(name, "", "")
	}
	f.Int("tier", 0, "")
	f.Int("max-tier", 3, "")
	noop := func(*cobra.Command, []string) error { return nil }
	ask := &cobra.Command{Use: "ask", RunE: noop}
	ask.Flags().String("resume", "", "")
	undo := &cobra.Command{Use: "undo", RunE: noop}
	undo.Flags().String("session", "", "")
	diff := &cobra.Command{Use: "diff", RunE: noop}
	diff.Flags().String("session", "", "")
	ev := &cobra.Command{Use: "eval", RunE: noop}
	ev.Flags().StringSlice("run", nil, "")
	ev.Flags().StringSlice("modes", nil, "")
	root.AddCommand(ask, undo, diff, ev)
	Register(root, src)
	return root
}

// completions runs cobra's __complete on args and returns what it prints.
func completions(t *testing.T, src Sources, args ...string) string {
	t.Helper()
	root := newRoot(src)
	var out strings.Builder
	root.SetOut(&out)
	root.SetErr(&strings.Builder{})
	root.SetArgs(append([]string{"__complete"}, args...))
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return out.String()
}

func TestModels(t *testing.T) {
	t.Parallel()
	var deadline time.Duration
	src := Sources{Models: func(ctx context.Context) []Model {
		d, _ := ctx.Deadline()
		deadline = time.Until(d)
		return []Model{
			{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B", Size: 5 << 30},
			{Name: "nomic-embed-text", Family: "nomic-bert", ParameterSize: "137M", Size: 274 << 20},
			{Name: "Qwen3-8B-GGUF"}, // an OpenAI-compatible server says only the name
		}
	}}
	if got, want := completions(t, src, "ask", "--model", ""), "qwen3:8b\tqwen3 8.2B 5.0 GB\nnomic-embed-text\tnomic-bert 137M 274 MB\nQwen3-8B-GGUF\n:4\n"; got != want {
		t.Errorf("all models:\n%q\nwant:\n%q", got, want)
	}
	if deadline <= 0 || deadline > Timeout {
		t.Errorf("the source had %s to answer, want at most %s", deadline, Timeout)
	}
	if got, want := completions(t, src, "--model", "qw"), "qwen3:8b\tqwen3 8.2B 5.0 GB\n:4\n"; got != want {
		t.Errorf("models starting with qw:\n%q\nwant:\n%q", got, want)
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 9, 30, 0, 0, time.Local)
	src := Sources{Sessions: func(context.Context) []Session {
		return []Session{
			{ID: "b2", Started: started, Title: "why does\nthe build " + strings.Repeat("fail ", 20)},
			{ID: "a1", Started: started.Add(-time.Hour), Title: "hello"},
		}
	}}
	long := "why does the build " + strings.Repeat("fail ", 7)
	long = long[:49] + "…"
	want := "b2\t2026-03-01 09:30 " + long + "\na1\t2026-03-01 08:30 hello\n:36\n" // newest first, kept in that order
	for _, args := range [][]string{{"--resume", ""}, {"ask", "--resume", ""}, {"undo", "--session", ""}, {"diff", "--session", ""}} {
		if got := completions(t, src, args...); got != want {
			t.Errorf("%q:\n%q\nwant:\n%q", args, got, want)
		}
	}
	if got := completions(t, src, "undo", "--session", "a"); got != "a1\t2026-03-01 08:30 hello\n:36\n" {
		t.Errorf("sessions starting with a: %q", got)
	}
}

func TestNoSourcesListNothing(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--model", ""}, {"--resume", ""}, {"ask", "@"}, {"ask", "explain", "@", ""}} {
		if got := completions(t, Sources{}, args...); got != ":4\n" {
			t.Errorf("%q with no sources: %q", args, got)
		}
	}
}

func TestFixedValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "--tool-mode", ""}, "auto\tnative calls when the model supports them\nnative\tthe server's tool calls\ntext\ttools in the prompt, calls parsed from the reply\nconstrained\ttext, replies held to a JSON schema\n:4\n"},
		{[]string{"--backend", ""}, "auto\task the server\nollama\tOllama\nopenai\tllama-server, LM Studio, vLLM\n:4\n"},
		{[]string{"--tier", ""}, "0\tread\n1\tedit\n2\tcommands\n3\texternal\n:4\n"},
		{[]string{"--max-tier", ""}, "0\tread\n1\tedit\n2\tcommands\n3\texternal\n:4\n"},
		{[]string{"eval", "--modes", ""}, "native\ntext\nconstrained\n:4\n"},
	} {
		if got := completions(t, Sources{}, tt.args...); got != tt.want {
			t.Errorf("%q:\n%q\nwant:\n%q", tt.args, got, tt.want)
		}
	}
}

func TestTasks(t *testing.T) {
	t.Parallel()
	got := completions(t, Sources{}, "eval", "--run", "add")
	if !strings.HasPrefix(got, "add-flag\t") || !strings.HasSuffix(got, ":4\n") || strings.Contains(got, "find-definition") {
		t.Errorf("eval tasks starting with add: %q", got)
	}
}

func TestAskPaths(t *testing.T) {
	t.Parallel()
	files := []string{"main.go", "cmd/tern/ask.go", "cmd/tern/main.go", "README.md"}
	src := Sources{Paths: func(_ context.Context, prefix string) []string {
		// a directory at a time, as tui.NextSegments does
		seen := map[string]bool{}
		var out []string
		for _, f := range files {
			rest, ok := strings.CutPrefix(f, prefix)
			if !ok {
				continue
			}
			next := prefix + rest
			if i := strings.Index(rest, "/"); i >= 0 {
				next = prefix + rest[:i+1]
			}
			if !seen[next] {
				seen[next] = true
				out = append(out, next)
			}
		}
		return out
	}}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "explain", "@ma"}, "@main.go\n:4\n"},
		{[]string{"ask", "@c"}, "@cmd/\n:6\n"}, // one directory: no space after it
		{[]string{"ask", "@cmd/tern/"}, "@cmd/tern/ask.go\n@cmd/tern/main.go\n:4\n"},
		{[]string{"ask", "explain", "@", "cmd/"}, "cmd/tern/\n:6\n"}, // bash split the @ off
		{[]string{"ask", "explain", "ma"}, ":4\n"},                   // no @: a word of the prompt
		{[]string{"ask", "@zz"}, ":4\n"},
	} {
		if got := completions(t, src, tt.args...); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestRegisterPanicsOnAMissingFlag(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a tree without --model registered without complaint")
		}
	}()
	Register(&cobra.Command{Use: "tern"}, Sources{})
}
