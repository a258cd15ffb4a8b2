package undocmd

import (
	"os"
	"path/filepath"
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
		{Args: []string{"ab"}, Err: `unknown command "ab" for "undo"`},
	})
}

// change takes the session's checkpoint as a run does, recording it in
// the session, then changes main.go and creates NOTES.md.
func change(t *testing.T, root, id string) {
	t.Helper()
	cmdtest.Checkpoint(t, root, id)
	cmdtest.Write(t, root, "main.go", "package main // changed\n")
	cmdtest.Write(t, root, "NOTES.md", "notes\n")
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
	root, id := cmdtest.Workspace(t, true)
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
	root, id := cmdtest.Workspace(t, true)
	change(t, root, id)
	out, errOut, err := undo(t, root, true, "", Options{})
	if err != nil || errOut != "" || !strings.Contains(out, "Restored 1 file and deleted 1 file.") {
		t.Errorf("--yes: %v\n%s%s", err, out, errOut)
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
