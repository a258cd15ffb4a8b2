package diffcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
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

// workspace makes a workspace at a temporary directory, a git repository
// when git is set, with main.go committed and one session; it returns the
// root and the session's id.
func workspace(t *testing.T, git bool) (string, string) {
	t.Helper()
	root := t.TempDir()
	write(t, root, "main.go", "package main\n")
	if git {
		cmdtest.GitCommit(t, root)
	}
	store, err := session.OpenWorkspace(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := store.Create(t.Context(), "qwen3:4b", root)
	if err != nil {
		t.Fatal(err)
	}
	return root, s.ID
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// saveCheckpoint takes the session's checkpoint as a run does, recording
// it in the session.
func saveCheckpoint(t *testing.T, root, id string) {
	t.Helper()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	store, err := session.OpenWorkspace(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tools.NewCheckpoint(ws, id, func(ctx context.Context, s tools.Saved) {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
		if err := store.SetMeta(ctx, id, checkpoint.MetaKey, s.Commit); err != nil {
			t.Fatal(err)
		}
	}).Save(t.Context())
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
	root, id := workspace(t, true)
	saveCheckpoint(t, root, id)
	out, errOut, err := diff(t, root, Options{})
	if err != nil || out != "" || errOut != "tern: session "+id+": no changes; the files match its checkpoint\n" {
		t.Errorf("no changes: %v, %q, %q", err, out, errOut)
	}

	write(t, root, "main.go", "package main // changed\n")
	write(t, root, "NOTES.md", "notes\n")
	out, errOut, err = diff(t, root, Options{Session: id})
	for _, want := range []string{"--- a/main.go\n+++ b/main.go\n", "-package main\n+package main // changed\n", "+++ b/NOTES.md\n", "+notes\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the diff lacks %q: %v, %q\n%s", want, err, errOut, out)
		}
	}
}

func TestRunFailures(t *testing.T) {
	t.Parallel()
	outside, id := workspace(t, false)
	inGit, unchanged := workspace(t, true)
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
