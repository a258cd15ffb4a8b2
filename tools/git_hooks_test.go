package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitToolsRunNoRepositoryHooks: a repository whose .git/hooks hold
// programs (as one unpacked with its .git, or a .git a command wrote,
// can) gets none of them run by what tern does on its own — the
// checkpoint before the first change, undo, git_status and git_diff.
// git_commit, which the user approves, runs the commit hooks as git does.
func TestGitToolsRunNoRepositoryHooks(t *testing.T) {
	ws, git := gitWorkspace(t)
	marks := t.TempDir()
	hooks := filepath.Join(ws.Root(), ".git", "hooks")
	for _, h := range []string{"reference-transaction", "post-index-change", "pre-commit", "post-commit", "post-checkout"} {
		script := "#!/bin/sh\ntouch " + filepath.Join(marks, h) + "\n"
		if err := os.WriteFile(filepath.Join(hooks, h), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git("status") // git's own run may refresh the index; tern's must not need it
	os.RemoveAll(marks)
	os.MkdirAll(marks, 0o755)

	cp := NewCheckpoint(ws, "s1", func(_ context.Context, s Saved) {
		if s.Err != nil {
			t.Errorf("checkpoint: %v", s.Err)
		}
	})
	cp.Save(t.Context())
	writeFiles(t, ws.Root(), map[string]string{"main.go": "package main // changed\n", "new.txt": "new\n"})
	call(t, NewGitStatus(ws), `{}`, 0)
	call(t, NewGitDiff(ws), `{}`, 0)
	plan, err := PlanUndo(t.Context(), ws, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ran, _ := os.ReadDir(marks); len(ran) > 0 {
		var names []string
		for _, e := range ran {
			names = append(names, e.Name())
		}
		t.Errorf("repository hooks ran: %s", strings.Join(names, ", "))
	}

	writeFiles(t, ws.Root(), map[string]string{"main.go": "package main // committed\n"})
	if r := call(t, NewGitCommit(ws), `{"message":"m"}`, 0); r.IsError {
		t.Fatalf("commit: %s", r.Output)
	}
	if _, err := os.Stat(filepath.Join(marks, "pre-commit")); err != nil {
		t.Errorf("git_commit did not run the pre-commit hook: %v", err)
	}
}
