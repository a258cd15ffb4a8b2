package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitWorkspace is a workspace over a fresh repository with one commit, with
// git's identity and configuration taken from the test only.
func gitWorkspace(t *testing.T) (*Workspace, func(args ...string) string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "test@example.com")
	}
	root := t.TempDir()
	git := gitRepo(t, root, map[string]string{"main.go": goFile, "README.md": "# demo\n", ".gitignore": ".tern/\n"})
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, git
}

func TestGitTools(t *testing.T) {
	ws, git := gitWorkspace(t)
	status, diff, commit := NewGitStatus(ws), NewGitDiff(ws), NewGitCommit(ws)

	runCases(t, status, []toolCase{{name: "clean", want: []string{"On branch main; no changes."}}})
	runCases(t, diff, []toolCase{{name: "no changes", want: []string{"No unstaged changes."}}})

	writeFiles(t, ws.Root(), map[string]string{"main.go": strings.Replace(goFile, "done", "finished", 1), "new.txt": "new\n"})
	runCases(t, status, []toolCase{{name: "changed", want: []string{"On branch main\n M main.go\n?? new.txt"}, summary: "git status: 2 changed files"}})
	runCases(t, diff, []toolCase{
		{name: "unstaged", want: []string{"--- a/main.go", `+	println("finished")`}},
		{name: "path filter", args: `{"path":"README.md"}`, want: []string{"No unstaged changes in README.md."}},
		{name: "staged empty points at unstaged", args: `{"staged":true}`, want: []string{"No staged changes; there are unstaged changes (set staged to false)."}},
		{name: "outside", args: `{"path":"../x"}`, isError: true, want: []string{"outside the workspace"}},
	})

	rv := commit.(Reviewer).Review(t.Context(), []byte(`{"message":"Say finished","files":["main.go"]}`))
	if rv.Refused != nil || !rv.Once || !strings.Contains(rv.Preview, `git commit -m "Say finished"`) || !strings.Contains(rv.Preview, "M main.go") || strings.Contains(rv.Preview, "new.txt") {
		t.Errorf("commit review = %+v", rv)
	}
	runCases(t, commit, []toolCase{
		{name: "no message", args: `{"message":" "}`, isError: true, want: []string{"message is required"}},
		{name: "file outside", args: `{"message":"x","files":["/etc/passwd"]}`, isError: true, want: []string{"outside the workspace"}},
		{name: "commit one file", args: `{"message":"Say finished","files":["main.go"]}`, want: []string{"Committed ", "Say finished", "1 file changed, 1 insertion(+), 1 deletion(-)"}},
	})
	if got := git("status", "--short"); got != "?? new.txt\n" {
		t.Errorf("after committing main.go, git status = %q", got)
	}
	runCases(t, commit, []toolCase{
		{name: "commit the rest", args: `{"message":"Add new.txt"}`, want: []string{"Add new.txt"}},
		{name: "nothing left", args: `{"message":"again"}`, isError: true, want: []string{"nothing to commit"}},
	})
	if got := git("log", "--format=%s"); got != "Add new.txt\nSay finished\ninitial\n" {
		t.Errorf("git log = %q", got)
	}
}

func TestGitToolsWithoutRepository(t *testing.T) {
	ws := newFixture(t)
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(ws.Root()))
	for _, tool := range []Tool{NewGitStatus(ws), NewGitDiff(ws), NewGitCommit(ws)} {
		r := call(t, tool, `{"message":"x"}`, 0)
		if !r.IsError || !strings.Contains(r.Output, "is not inside a git repository") {
			t.Errorf("%s outside a repository: %+v", tool.Spec().Name, r)
		}
	}
	t.Setenv("PATH", t.TempDir())
	r := call(t, NewGitStatus(ws), ``, 0)
	if !r.IsError || !strings.Contains(r.Output, "git is not installed") {
		t.Errorf("git_status without git: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), ".git")); err == nil {
		t.Error("a repository was created")
	}
}
