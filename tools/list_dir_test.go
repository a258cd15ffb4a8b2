package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListDir(t *testing.T) {
	ws := newFixture(t)
	if err := os.Mkdir(filepath.Join(ws.Root(), "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("main.go", filepath.Join(ws.Root(), "link.go")); err != nil {
		t.Fatal(err)
	}
	ignored := []string{"build", "debug.log", "secret.txt", "gen_stubs.go", ".git/", ".tern/"}
	runCases(t, NewListDir(ws), []toolCase{
		{name: "root, depth 2", args: `{}`, summary: "list_dir . (13 entries)", notWant: ignored, want: []string{`./
agent/
  sub/ (1 entry)
  loop.go
  loop_test.go
docs/
  notes with spaces.md
empty/ (empty)
img/
  logo.png
vendor/
  lib/ (1 entry)
ünï/
  файл.txt
.gitignore
big.txt
crlf.txt
empty.txt
latin1.txt
link.go -> main.go
main.go`}},
		{name: "depth 1", args: `{"path":"agent","depth":1}`, want: []string{"agent/\nsub/ (1 entry)\nloop.go\nloop_test.go"}},
		{name: "depth as string, capped at 5", args: `{"path":"agent","depth":"9"}`, notWant: ignored,
			want: []string{"agent/\nsub/\n  deep/\n    .ternignore\n    x.go\nloop.go\n"}},
		{name: "trailing slash", args: `{"path":"agent/sub/"}`, want: []string{"agent/sub/\ndeep/\n  .ternignore\n  x.go"}},
		{name: "unicode", args: `{"path":"ünï"}`, want: []string{"ünï/\nфайл.txt"}},
		{name: "empty", args: `{"path":"empty"}`, want: []string{"empty/\n(empty directory)"}},
		{name: "a file", args: `{"path":"main.go"}`, isError: true, want: []string{"main.go is a file, not a directory; use read_file"}},
		{name: "missing", args: `{"path":"nowhere"}`, isError: true, want: []string{"nowhere does not exist"}},
		{name: "ignored", args: `{"path":"build"}`, isError: true, want: []string{"build is ignored"}},
		{name: "outside", args: `{"path":".."}`, isError: true, want: []string{"outside the workspace"}},
	})
}

func TestListDirCap(t *testing.T) {
	ws := newFixture(t)
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("wide/f%03d.txt", i)] = ""
	}
	for i := range 30 {
		for j := range 10 {
			files[fmt.Sprintf("tall/d%02d/f%d.txt", i, j)] = ""
		}
	}
	writeFiles(t, ws.Root(), files)
	runCases(t, NewListDir(ws), []toolCase{
		{name: "too many entries", args: `{"path":"wide"}`,
			want:    []string{"wide/\nf000.txt\n", "f199.txt\n… 50 more entries; list a subdirectory to see them"},
			notWant: []string{"f200.txt"}},
		{name: "too deep falls back a level", args: `{"path":"tall","depth":2}`,
			want:    []string{"tall/\nd00/ (10 entries)\nd01/ (10 entries)\n", "d29/ (10 entries)\n(depth 1 shown: depth 2 would list 330 entries, over the 200 cap)"},
			notWant: []string{"f0.txt"}},
	})
	out := call(t, NewListDir(ws), `{"path":"wide"}`, 0).Output
	if n := strings.Count(out, "\n"); n != 201 {
		t.Errorf("%d lines, want the root, 200 entries and a note", n+1)
	}
}
