// Package cmdtest is what the tests of tern's command packages share:
// parsing a command line into a command's options without running it,
// and a committed git repository for checkpoints to be taken in.
package cmdtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// Parse runs the command newCmd makes on args, with a run function that
// only keeps the options it is handed. It returns those options, nil when
// the command did not get as far as running, and cobra's error.
func Parse[O any](newCmd func(run func(context.Context, *O) error) *cobra.Command, args ...string) (*O, error) {
	var got *O
	cmd := newCmd(func(_ context.Context, o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	err := cmd.Execute()
	return got, err
}

// Case is a command line and what parsing it must give: the options, or
// an error containing Err (and then no run).
type Case[O comparable] struct {
	Args []string
	Want O
	Err  string
}

// CheckParse parses each case's command line with Parse and reports
// every difference from what the case wants.
func CheckParse[O comparable](t *testing.T, newCmd func(run func(context.Context, *O) error) *cobra.Command, cases []Case[O]) {
	t.Helper()
	for _, c := range cases {
		got, err := Parse(newCmd, c.Args...)
		switch {
		case c.Err != "":
			if err == nil || !strings.Contains(err.Error(), c.Err) || got != nil {
				t.Errorf("%q: %v, ran %v; want an error with %q", c.Args, err, got, c.Err)
			}
		case err != nil || got == nil || *got != c.Want:
			t.Errorf("%q: %v, ran %+v; want %+v", c.Args, err, got, c.Want)
		}
	}
}

// GitCommit makes dir a git repository with everything in it committed,
// on a branch named main, with git's system and user config left out. It
// skips the test where git is not installed.
func GitCommit(t testing.TB, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// Workspace makes a workspace in a temporary directory holding main.go,
// a git repository with it committed when git is set, and one session
// that asked to "fix the greeting". It returns the root and the
// session's id.
func Workspace(t *testing.T, git bool) (root, sessionID string) {
	t.Helper()
	root = t.TempDir()
	Write(t, root, "main.go", "package main\n")
	if git {
		GitCommit(t, root)
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
	if err := store.AppendMessage(t.Context(), s.ID, models.Message{Role: models.RoleUser, Content: "fix the greeting"}); err != nil {
		t.Fatal(err)
	}
	return root, s.ID
}

// Write writes content to the file name below root.
func Write(t testing.TB, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Checkpoint takes the session's checkpoint of the workspace at root as a
// run does, and records it in the session where checkpoint.Find looks.
func Checkpoint(t *testing.T, root, sessionID string) {
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
	tools.NewCheckpoint(ws, sessionID, func(ctx context.Context, s tools.Saved) {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
		if err := store.SetMeta(ctx, sessionID, checkpoint.MetaKey, s.Commit); err != nil {
			t.Fatal(err)
		}
	}).Save(t.Context())
}
