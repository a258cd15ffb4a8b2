package diffcmd

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
)

// TestNewCmd: --session lands in Options; arguments are refused before
// anything runs.
func TestNewCmd(t *testing.T) {
	t.Parallel()
	cmdtest.CheckParse(t, NewCmd, []cmdtest.Case[Options]{
		{Args: nil},
		{Args: []string{"--session", "ab"}, Want: Options{Session: "ab"}},
		{Args: []string{"ab"}, Err: `unknown command "ab" for "diff"`},
	})
}

// diff runs tern diff in root.
func diff(t *testing.T, root string, o Options) (string, string, error) {
	t.Helper()
	var out, errOut strings.Builder
	err := Run(t.Context(), Env{Root: root, Out: &out, Err: &errOut}, &o)
	return out.String(), errOut.String(), err
}

func TestRun(t *testing.T) {
	t.Parallel()
	root, id := cmdtest.Workspace(t, true)
	cmdtest.Checkpoint(t, root, id)
	out, errOut, err := diff(t, root, Options{})
	if err != nil || out != "" || errOut != "tern: session "+id+": no changes; the files match its checkpoint\n" {
		t.Errorf("no changes: %v, %q, %q", err, out, errOut)
	}

	cmdtest.Write(t, root, "main.go", "package main // changed\n")
	cmdtest.Write(t, root, "NOTES.md", "notes\n")
	cmdtest.Write(t, root, "café ☕.md", "au lait\n")
	out, errOut, err = diff(t, root, Options{Session: id})
	for _, want := range []string{"--- a/main.go\n+++ b/main.go\n", "-package main\n+package main // changed\n", "+++ b/NOTES.md\n", "+notes\n",
		"+++ b/café ☕.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("the diff lacks %q: %v, %q\n%s", want, err, errOut, out)
		}
	}
	if strings.Contains(out, `\303`) {
		t.Errorf("a name with non-ASCII letters is shown in octal escapes:\n%s", out)
	}
}

func TestRunFailures(t *testing.T) {
	t.Parallel()
	outside, id := cmdtest.Workspace(t, false)
	inGit, unchanged := cmdtest.Workspace(t, true)
	for _, tt := range []struct {
		name, root string
		o          Options
		want       string
	}{
		{"outside git", outside, Options{}, "diff is unavailable: the workspace is not in a git repository, so tern takes no checkpoints here"},
		{"outside git, named", outside, Options{Session: id}, "diff is unavailable: the workspace is not in a git repository"},
		{"unknown session", inGit, Options{Session: "zz99"}, "no session \"zz99\" in this workspace; list them with `tern sessions`"},
		{"no checkpoint yet", inGit, Options{}, "no session in this workspace has a checkpoint: none has changed files yet"},
		{"named, no checkpoint", inGit, Options{Session: unchanged}, "session " + unchanged + " has no checkpoint: it changed no files, or changed them where git could not take one"},
	} {
		out, _, err := diff(t, tt.root, tt.o)
		if err == nil || err.Error() != tt.want || out != "" {
			t.Errorf("%s: %v, stdout %q; want %q", tt.name, err, out, tt.want)
		}
	}
}
