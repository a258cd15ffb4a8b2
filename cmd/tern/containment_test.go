package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// toolResults returns every tool message the model was sent.
func toolResults(f *fixture) string {
	var b strings.Builder
	for _, req := range f.srv.Requests() {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				b.WriteString(m.Content + "\n")
			}
		}
	}
	return b.String()
}

// TestAskGitPathspecMagicStaysInWorkspace runs tern in a subdirectory of a
// repository (--dir) while the scripted model tries to diff and commit a
// file above it with pathspec magic.
func TestAskGitPathspecMagicStaysInWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(f.dir, "sub", "app.go"), []byte("package app\n"), 0o644)
	os.WriteFile(filepath.Join(f.dir, "top.txt"), []byte("top v1\n"), 0o644)
	f.gitInit()
	os.WriteFile(filepath.Join(f.dir, "top.txt"), []byte("top SECRET v2\n"), 0o644)
	repo := f.dir
	f.dir = filepath.Join(repo, "sub")
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "git_diff", Args: `{"path":":(top)top.txt"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "git_diff", Args: `{"path":":/"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "git_commit", Args: `{"message":"x","files":[":(top)top.txt"]}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "git_commit", Args: `{"message":"x","files":[":/"]}`}}},
		ollamatest.Reply{Content: "done"},
	)
	code, _, errOut := f.tern(t.Context(), "ask", "--tier", "2", "--yes", "commit everything")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if got := toolResults(f); strings.Contains(got, "SECRET") {
		t.Errorf("a file above the workspace reached the model:\n%s", got)
	}
	out, _ := exec.Command("git", "-C", repo, "log", "--format=%s").Output()
	if string(out) != "initial\n" {
		t.Errorf("commits made: %q", out)
	}
}

// TestAskRefusesTernLinkedOutside ships .tern as a symbolic link to a
// directory outside the workspace: tern must refuse to use it, say why,
// and create nothing there.
func TestAskRefusesTernLinkedOutside(t *testing.T) {
	t.Parallel()
	for _, link := range []string{".tern", ".tern/tern.db", ".tern/index.db", ".tern/outputs"} {
		t.Run(link, func(t *testing.T) {
			f := newFixture(t)
			outside := t.TempDir()
			os.MkdirAll(filepath.Join(f.dir, ".tern"), 0o755)
			if link == ".tern" {
				os.Remove(filepath.Join(f.dir, ".tern"))
			}
			target := filepath.Join(outside, "target")
			if link == ".tern" || link == ".tern/outputs" {
				os.Mkdir(target, 0o755)
			}
			if err := os.Symlink(target, filepath.Join(f.dir, link)); err != nil {
				t.Fatal(err)
			}
			f.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"seq 1 200000"}`}}},
				ollamatest.Reply{Content: "ok"},
			)
			_, _, errOut := f.tern(t.Context(), "ask", "--tier", "2", "--yes", "count")
			if link == ".tern/index.db" {
				_, _, errOut = f.tern(t.Context(), "index")
			}
			if link == ".tern/outputs" {
				errOut = toolResults(f) // the spill is refused, the command's result says so
			}
			if !strings.Contains(errOut, "is a symbolic link") {
				t.Errorf("tern does not name the link:\n%s", errOut)
			}
			var made []string
			filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
				if p != outside && p != target {
					made = append(made, p)
				}
				return nil
			})
			if len(made) > 0 {
				t.Errorf("tern wrote outside the workspace: %v", made)
			}
		})
	}
}

// TestAskFetchURLRefusesLoopback has the model fetch the machine's own
// services (here the fake Ollama itself, and a cloud metadata address).
func TestAskFetchURLRefusesLoopback(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "fetch_url", Args: `{"url":"` + f.srv.URL() + `/api/tags"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "fetch_url", Args: `{"url":"http://169.254.169.254/latest/meta-data/"}`}}},
		ollamatest.Reply{Content: "done"},
	)
	code, _, errOut := f.tern(t.Context(), "ask", "--tier", "3", "--yes", "fetch it")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := toolResults(f)
	if !strings.Contains(got, "127.0.0.1 is a loopback address") || !strings.Contains(got, "169.254.169.254 is a link-local address") || strings.Contains(got, "qwen3:8b") {
		t.Errorf("tool results:\n%s", got)
	}
}

// TestAskOpensNonUTF8Names has the model list a directory whose file names
// are not valid UTF-8 and read one by the name it was shown.
func TestAskOpensNonUTF8Names(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.dir, "caf\xe9.txt"), []byte("latte\n"), 0o644)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "glob", Args: `{"pattern":"*.txt"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"caf\\xE9.txt"}`}}},
		ollamatest.Reply{Content: "done"},
	)
	if code, _, errOut := f.tern(t.Context(), "ask", "what is in the txt files?"); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := toolResults(f)
	if !strings.Contains(got, `caf\xE9.txt`) || !strings.Contains(got, "1\tlatte") {
		t.Errorf("tool results:\n%s", got)
	}
}

// TestAskDeepTree runs glob, grep and a read of a missing file in a tree
// 1,000 directories deep, and indexes it: each must finish (the speed is
// BenchmarkDeepTreeTools' and BenchmarkWalkDeep's to watch).
func TestAskDeepTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	deep := filepath.Join(f.dir, strings.TrimSuffix(strings.Repeat("d/", 1000), "/"))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(deep, "leaf.go"), []byte("package leaf\n\nfunc Needle() {}\n"), 0o644)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "glob", Args: `{"pattern":"**/leaf.go"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"func Needle"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"missing/leaf.go"}`}}},
		ollamatest.Reply{Content: "done"},
	)
	if code, _, errOut := f.tern(t.Context(), "ask", "find Needle"); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := toolResults(f)
	if strings.Count(got, "d/d/d/d/d/d/d/d/d/d") < 3 || !strings.Contains(got, "Did you mean") {
		t.Errorf("tool results lack the deep file:\n%.2000s", got)
	}
	code, out, errOut := f.tern(t.Context(), "index", "--no-embed")
	if code != 0 || !strings.Contains(out, "indexed") {
		t.Errorf("tern index: exit %d\n%s%s", code, out, errOut)
	}
}
