package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitPathspecMagicStaysInWorkspace works in a subdirectory of a
// repository and tries, through git_diff and git_commit, every form of
// pathspec magic that names files above it. None may show or commit them.
func TestGitPathspecMagicStaysInWorkspace(t *testing.T) {
	_, _ = gitWorkspace(t) // the test's git identity and config
	repo := t.TempDir()
	git := gitRepo(t, repo, map[string]string{"secret.txt": "top secret v1\n", "sub/app.go": "package app\n"})
	writeFiles(t, repo, map[string]string{"secret.txt": "top secret v2\n", "sub/app.go": "package app // changed\n"})
	git("add", "secret.txt") // staged outside the workspace: must stay staged
	ws, err := NewWorkspace(filepath.Join(repo, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	magic := []string{
		":(top)secret.txt", ":/secret.txt", ":(top)", ":/", ":(glob)**", ":(top,glob)**/*.txt",
		":!app.go", ":(exclude)app.go", ":^app.go", ":(icase)SECRET.TXT", ":(attr:x)", "../secret.txt",
	}
	diff := NewGitDiff(ws)
	for _, p := range magic {
		for _, staged := range []bool{false, true} {
			r := call(t, diff, fmt.Sprintf(`{"path":%q,"staged":%v}`, p, staged), 0)
			if strings.Contains(r.Output, "top secret") || strings.Contains(r.Output, "secret.txt\n") || strings.Contains(r.Output, "/secret.txt b/") {
				t.Errorf("git_diff %q (staged %v) showed a file outside the workspace:\n%s", p, staged, r.Output)
			}
		}
	}
	commit := NewGitCommit(ws)
	for _, p := range magic {
		r := call(t, commit, fmt.Sprintf(`{"message":"m","files":[%q]}`, p), 0)
		if !r.IsError {
			t.Errorf("git_commit of %q went through: %s", p, r.Output)
		}
	}
	// A commit of everything commits the workspace's files only.
	if r := call(t, commit, `{"message":"app only"}`, 0); r.IsError {
		t.Fatalf("commit: %s", r.Output)
	}
	if got := git("show", "--name-only", "--format=", "HEAD"); got != "sub/app.go\n" {
		t.Errorf("the commit took %q; want sub/app.go only", got)
	}
	if got := git("diff", "--cached", "--name-only"); got != "secret.txt\n" {
		t.Errorf("staged outside the workspace after the commit: %q", got)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "secret.txt")); string(data) != "top secret v2\n" {
		t.Errorf("secret.txt changed: %q", data)
	}
}

// TestGitToolsWithPathspecEnvironment: pathspec settings in the user's
// environment neither stop the git tools nor turn magic back on.
func TestGitToolsWithPathspecEnvironment(t *testing.T) {
	for _, env := range []string{"GIT_ICASE_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "1")
			ws, _ := gitWorkspace(t)
			writeFiles(t, ws.Root(), map[string]string{"main.go": "package main // changed\n"})
			r := call(t, NewGitDiff(ws), `{"path":"main.go"}`, 0)
			if r.IsError || !strings.Contains(r.Output, "changed") {
				t.Errorf("git_diff with %s=1: %+v", env, r)
			}
			if r := call(t, NewGitDiff(ws), `{"path":":(icase)MAIN.GO"}`, 0); strings.Contains(r.Output, "changed") {
				t.Errorf("magic worked with %s=1: %s", env, r.Output)
			}
		})
	}
}
