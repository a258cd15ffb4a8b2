package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	out := filepath.Join(base, "out")
	ref := filepath.Join(base, "ref")
	writeFiles(t, base, map[string]string{
		"repo/main.go":                   "package main\n",
		"repo/agent/loop.go":             "package agent\n",
		"repo/docs/notes with spaces.md": "# notes\n",
		"repo/ünï/файл.txt":              "привет\n",
		"out/secret.txt":                 "secret\n",
		"ref/doc.md":                     "# reference\n",
	})
	for link, target := range map[string]string{
		"repo/linkfile": filepath.Join(out, "secret.txt"),
		"repo/linkdir":  out,
		"repo/inner":    filepath.Join(root, "agent"),
		"repo/relinner": "agent",
		"repo/dangling": filepath.Join(out, "missing.txt"),
		"repo/toref":    ref,
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := NewWorkspace(root, ref)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		path    string
		access  Access
		wantRel string // when the path is allowed
		outside bool   // refusal wraps ErrOutsideWorkspace
		errHas  string // refusal text, when refused
	}{
		{name: "relative", path: "agent/loop.go", wantRel: "agent/loop.go"},
		{name: "root", path: ".", wantRel: "."},
		{name: "dot-dot inside", path: "agent/../main.go", wantRel: "main.go"},
		{name: "dot-dot escape", path: "../out/secret.txt", access: Write, outside: true, errHas: "is outside the workspace (" + root + "); use a path inside"},
		{name: "deep dot-dot escape", path: "agent/../../out/secret.txt", outside: true, errHas: "outside the workspace"},
		{name: "absolute inside", path: filepath.Join(root, "main.go"), wantRel: "main.go"},
		{name: "absolute outside", path: filepath.Join(out, "secret.txt"), outside: true, errHas: "outside the workspace"},
		{name: "etc passwd", path: "../../../../../../etc/passwd", outside: true, errHas: `path "../../../../../../etc/passwd" is outside`},
		{name: "symlink file escaping", path: "linkfile", outside: true, errHas: "through a symbolic link"},
		{name: "symlink dir escaping", path: "linkdir/secret.txt", outside: true, errHas: "through a symbolic link"},
		{name: "write through symlink dir", path: "linkdir/new.txt", access: Write, outside: true, errHas: "through a symbolic link"},
		{name: "symlink inside stays inside", path: "inner/loop.go", wantRel: "agent/loop.go"},
		{name: "relative symlink inside", path: "relinner/loop.go", access: Write, wantRel: "agent/loop.go"},
		{name: "broken symlink", path: "dangling", access: Write, errHas: "broken symbolic link"},
		{name: "allowRead read", path: filepath.Join(ref, "doc.md"), wantRel: filepath.Join(ref, "doc.md")},
		{name: "allowRead via symlink", path: "toref/doc.md", wantRel: filepath.Join(ref, "doc.md")},
		{name: "allowRead write", path: filepath.Join(ref, "doc.md"), access: Write, outside: true, errHas: "may be read but not written"},
		{name: "outside with allowRead", path: "../out/secret.txt", outside: true, errHas: "directories allowed for reading (" + ref + ")"},
		{name: "nested write target", path: "new/deep/dir/file.txt", access: Write, wantRel: "new/deep/dir/file.txt"},
		{name: "spaces", path: "docs/notes with spaces.md", wantRel: "docs/notes with spaces.md"},
		{name: "unicode", path: "ünï/файл.txt", wantRel: "ünï/файл.txt"},
		{name: "unicode new file", path: "ünï/новый файл.txt", access: Write, wantRel: "ünï/новый файл.txt"},
		{name: "write into .git", path: ".git/config", access: Write, errHas: "inside .git"},
		{name: "write into .GIT", path: ".GIT/hooks/pre-commit", access: Write, errHas: "inside .GIT"},
		{name: "write into .Tern", path: "sub/../.Tern/x", access: Write, errHas: "inside .Tern"},
		{name: "empty", path: " ", errHas: "path is empty"},
		{name: "root-relative absolute", path: "/agent/loop.go", wantRel: "agent/loop.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abs, rel, err := ws.Resolve(tt.path, tt.access)
			if tt.errHas != "" {
				if err == nil {
					t.Fatalf("Resolve(%q) = %q, want a refusal", tt.path, abs)
				}
				if !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("refusal %q lacks %q", err, tt.errHas)
				}
				if got := errors.Is(err, ErrOutsideWorkspace); got != tt.outside {
					t.Errorf("errors.Is(err, ErrOutsideWorkspace) = %v, want %v", got, tt.outside)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.path, err)
			}
			if rel != tt.wantRel {
				t.Errorf("rel = %q, want %q", rel, tt.wantRel)
			}
			if !filepath.IsAbs(abs) {
				t.Errorf("abs = %q is not absolute", abs)
			}
		})
	}
}

func TestNewWorkspace(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{"repo/a.txt": "a"})
	if err := os.Symlink(filepath.Join(base, "repo"), filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(filepath.Join(base, "alias"))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(filepath.Join(base, "repo")); ws.Root() != want {
		t.Errorf("Root() = %q, want the resolved %q", ws.Root(), want)
	}
	if _, rel, err := ws.Resolve(filepath.Join(base, "alias", "a.txt"), Read); err != nil || rel != "a.txt" {
		t.Errorf("a path through the root's alias: rel %q, err %v", rel, err)
	}
	if _, err := NewWorkspace(filepath.Join(base, "repo", "a.txt")); err == nil {
		t.Error("a file as root: no error")
	}
	if _, err := NewWorkspace(filepath.Join(base, "missing")); err == nil {
		t.Error("a missing root: no error")
	}
	if _, err := NewWorkspace(base, filepath.Join(base, "missing")); err == nil {
		t.Error("a missing allowRead dir: no error")
	}
}

func TestCap(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		limit   int
		cut     bool
		want    []string
		notWant []string
	}{
		{name: "fits", in: "a\nb\n", limit: 10, want: []string{"a\nb\n"}},
		{name: "lines", in: numbered(1000), limit: 1000, cut: true,
			want:    []string{"line 1 of 1000\n", "line 1000 of 1000\n", " lines (", " bytes) omitted …\n"},
			notWant: []string{"line 500 of 1000"}},
		{name: "one long line", in: strings.Repeat("é", 5000), limit: 400, cut: true,
			want: []string{"… 1 lines (", "omitted …"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Cap(tt.in, tt.limit)
			if cut != tt.cut {
				t.Fatalf("cut = %v, want %v", cut, tt.cut)
			}
			if len(got) > tt.limit+8 {
				t.Errorf("len = %d, over the limit %d", len(got), tt.limit)
			}
			if !tt.cut && got != tt.in {
				t.Errorf("uncut output changed: %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("has %q:\n%s", w, got)
				}
			}
			if !strings.Contains(got, "\uFFFD") && strings.ToValidUTF8(got, "\uFFFD") != got {
				t.Errorf("cut inside a rune:\n%q", got)
			}
		})
	}
	// Head and tail are whole lines, in a 60:40 balance.
	got, _ := Cap(numbered(1000), 2000)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	marker := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "… ") {
			marker = i
		} else if !strings.HasPrefix(l, "line ") || !strings.HasSuffix(l, " of 1000") {
			t.Errorf("partial line kept: %q", l)
		}
	}
	head, tail := marker, len(lines)-marker-1
	if head < tail || head > 2*tail {
		t.Errorf("head %d lines, tail %d lines; want about 60:40", head, tail)
	}
}

func TestSpillAndFit(t *testing.T) {
	ws := newFixture(t)
	big := numbered(5000)
	out := ws.Fit("grep", big, 0)
	if len(out) > DefaultLimit {
		t.Errorf("fitted output is %d bytes, over DefaultLimit %d", len(out), DefaultLimit)
	}
	const spilled = ".tern/outputs/20260301-120000.000-grep.txt"
	if !strings.HasSuffix(out, "\nfull output: "+spilled+"; read it with read_file offset/limit") {
		t.Errorf("fitted output does not end with the spill note:\n%s", out[len(out)-200:])
	}
	if got, err := os.ReadFile(filepath.Join(ws.Root(), spilled)); err != nil || string(got) != big {
		t.Errorf("spilled file holds %d bytes (err %v), want the whole %d", len(got), err, len(big))
	}
	if got, _ := os.ReadFile(filepath.Join(ws.Root(), ".tern", ".gitignore")); string(got) != "*\n" {
		t.Errorf(".tern/.gitignore = %q, want \"*\\n\"", got)
	}
	// A second spill in the same millisecond gets its own file.
	rel, err := ws.Spill("grep", "second")
	if err != nil || rel == spilled {
		t.Errorf("second spill: %q, %v", rel, err)
	}
	// The model can page the spilled file with read_file, though .tern is ignored.
	r := call(t, NewReadFile(ws), `{"path":"`+spilled+`","offset":4999}`, 0)
	if r.IsError || !strings.Contains(r.Output, "4999\tline 4999 of 5000") {
		t.Errorf("read_file of the spill: %s", r.Output)
	}
	if small := ws.Fit("grep", "short", 0); small != "short" {
		t.Errorf("short output changed: %q", small)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), ".tern", "outputs")); err != nil {
		t.Error(err)
	}
}

// TestDeepPathRefusedAtOnce: a path nested 10,000 directories deep is
// refused with a short message before anything is resolved (walking up
// it one prefix at a time took minutes); one just under the limit, most
// of it missing, resolves in one walk down.
func TestDeepPathRefusedAtOnce(t *testing.T) {
	ws := newFixture(t)
	deep := strings.Repeat("d/", 10000) + "x.go"
	for _, tool := range []Tool{NewReadFile(ws), NewWriteFile(ws, nil)} {
		r := call(t, tool, `{"path":"`+deep+`","content":"x"}`, 0)
		if !r.IsError || !strings.Contains(r.Output, "longer than the system allows") || len(r.Output) > 1000 {
			t.Errorf("%T: %.300s", tool, r.Output)
		}
	}
	os.MkdirAll(filepath.Join(ws.Root(), strings.Repeat("e/", 500)), 0o755)
	long := strings.Repeat("e/", 500) + strings.Repeat("m/", 1400) + "x.go"
	abs, _, err := ws.Resolve(long, Write)
	if err != nil || abs != filepath.Join(ws.Root(), long) {
		t.Errorf("Resolve = %.100q, %v", abs, err)
	}
}

// TestSpillOutsideTheWorkspace: where tern keeps the workspace's state
// outside it (here: the workspace is the home directory, which tern keeps
// clean), output is spilled there, named by its absolute path, and
// read_file pages it as it pages .tern/outputs.
func TestSpillOutsideTheWorkspace(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", state)
	ws, err := NewWorkspace(home)
	if err != nil {
		t.Fatal(err)
	}
	out := ws.Fit("grep", numbered(5000), 0)
	_, note, _ := strings.Cut(out, "\nfull output: ")
	path, _, _ := strings.Cut(note, ";")
	if !strings.HasPrefix(path, state+string(filepath.Separator)) || !strings.HasSuffix(path, "-grep.txt") {
		t.Fatalf("spilled to %q, want a file under %s:\n%s", path, state, note)
	}
	if _, err := os.Stat(filepath.Join(home, ".tern")); err == nil {
		t.Error("the spill made .tern in the home directory")
	}
	r := call(t, NewReadFile(ws), `{"path":"`+path+`","offset":4999}`, 0)
	if r.IsError || !strings.Contains(r.Output, "4999\tline 4999 of 5000") {
		t.Errorf("read_file of the spill: %s", r.Output)
	}
	// Nothing else of the state directory is readable.
	os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(path)), "tern.db"), []byte("x"), 0o600)
	if r := call(t, NewReadFile(ws), `{"path":"`+filepath.Join(filepath.Dir(filepath.Dir(path)), "tern.db")+`"}`, 0); !r.IsError {
		t.Errorf("read_file reads the session store: %s", r.Output)
	}
}
