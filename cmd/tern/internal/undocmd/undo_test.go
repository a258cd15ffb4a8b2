package undocmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/models"
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
		{Args: []string{"ab"}, Err: `unknown command "ab" for "undo"`},
	})
}

// workspace makes a workspace at a temporary directory, a git repository
// when git is set, with main.go committed and one session that asked to
// "fix the greeting"; it returns the root and the session's id.
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
	if err := store.AppendMessage(t.Context(), s.ID, models.Message{Role: models.RoleUser, Content: "fix the greeting"}); err != nil {
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

// change takes the session's checkpoint as a run does, recording it in
// the session, then changes main.go and creates NOTES.md.
func change(t *testing.T, root, id string) {
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
	write(t, root, "main.go", "package main // changed\n")
	write(t, root, "NOTES.md", "notes\n")
}

// undo runs tern undo in root with answer on stdin.
func undo(t *testing.T, root string, yes bool, answer string, o Options) (string, string, error) {
	t.Helper()
	var out, errOut strings.Builder
	err := Run(t.Context(), Env{Root: root, In: strings.NewReader(answer), Out: &out, Err: &errOut, Yes: yes}, &o)
	return out.String(), errOut.String(), err
}

func TestRun(t *testing.T) {
	t.Parallel()
	root, id := workspace(t, true)
	change(t, root, id)
	plan := "Restore 1 file:\n  main.go\nDelete 1 file created since:\n  NOTES.md\n"

	out, errOut, err := undo(t, root, false, "n\n", Options{})
	if err == nil || err.Error() != "nothing was changed" || !strings.Contains(out, plan) || errOut != "Restore these files? [y/N] " {
		t.Fatalf("answered no: %v\n%s%s", err, out, errOut)
	}
	if !strings.HasPrefix(out, "Session "+id+" (qwen3:4b, \"fix the greeting\")\ncheckpoint ") {
		t.Errorf("the session is not named first:\n%s", out)
	}
	_, errOut, err = undo(t, root, false, "", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "no answer on stdin; nothing was changed") || errOut != "Restore these files? [y/N] \n" {
		t.Fatalf("no answer: %v, %q", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "NOTES.md")); err != nil {
		t.Fatal("an undo that was not agreed to deleted NOTES.md")
	}

	out, errOut, err = undo(t, root, false, "YES\n", Options{Session: id})
	if err != nil || !strings.Contains(out, plan+"Restored 1 file and deleted 1 file. The files as they were before this undo are in refs/tern/undone/"+id) {
		t.Fatalf("answered yes: %v\n%s%s", err, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "main.go")); string(b) != "package main\n" {
		t.Errorf("main.go after the undo = %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "NOTES.md")); err == nil {
		t.Error("NOTES.md, created by the session, survived the undo")
	}

	out, errOut, err = undo(t, root, false, "", Options{})
	if err != nil || !strings.HasSuffix(out, "Nothing to undo: the files match the checkpoint.\n") || errOut != "" {
		t.Errorf("second undo: %v\n%s%s", err, out, errOut)
	}
}

// TestRunYes: --yes restores without asking.
func TestRunYes(t *testing.T) {
	t.Parallel()
	root, id := workspace(t, true)
	change(t, root, id)
	out, errOut, err := undo(t, root, true, "", Options{})
	if err != nil || errOut != "" || !strings.Contains(out, "Restored 1 file and deleted 1 file.") {
		t.Errorf("--yes: %v\n%s%s", err, out, errOut)
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
		// Outside git, not "none has changed files": there are no checkpoints.
		{"outside git", outside, Options{}, "undo is unavailable: the workspace is not in a git repository, so tern takes no checkpoints here and cannot restore what a session changed"},
		{"outside git, named", outside, Options{Session: id}, "undo is unavailable: the workspace is not in a git repository"},
		{"unknown session", outside, Options{Session: "zz99"}, "no session \"zz99\" in this workspace; list them with `tern sessions`"},
		{"no checkpoint yet", inGit, Options{}, "no session in this workspace has a checkpoint: none has changed files yet"},
		{"named, no checkpoint", inGit, Options{Session: unchanged}, "session " + unchanged + " has no checkpoint: it changed no files, or changed them where git could not take one"},
	} {
		out, _, err := undo(t, tt.root, true, "", tt.o)
		if err == nil || err.Error() != tt.want || out != "" {
			t.Errorf("%s: %v, stdout %q; want %q", tt.name, err, out, tt.want)
		}
	}
}
