package tools

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzToolPaths gives the file tools paths a hostile model might write —
// relative, absolute, through symbolic links that lead out, with dot-dots,
// escapes and odd bytes — in a workspace whose links point at a directory
// beside it. Nothing of that directory may be shown, and nothing in it
// may be written, whatever the path.
func FuzzToolPaths(f *testing.F) {
	base := f.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	writeFiles(f, root, map[string]string{"a.txt": "inside\n", "dir/b.txt": "inside\n", ".git/config": "[core]\n"})
	writeFiles(f, outside, map[string]string{"secret.txt": "OUTSIDE-SECRET\n", "d/s.txt": "OUTSIDE-SECRET\n", "listed-only.txt": "OUTSIDE-SECRET\n"})
	for name, target := range map[string]string{
		"out": outside, "outfile": filepath.Join(outside, "secret.txt"), "rel": "../outside",
		"dir/up": "../../outside/d", "loop": "loop", "dangling": "../outside/none/x",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			f.Fatal(err)
		}
	}
	ws, err := NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	before := listTree(f, outside)
	read, list, write, edit := NewReadFile(ws), NewListDir(ws), NewWriteFile(ws, nil), NewEditFile(ws, nil)
	for _, s := range []string{
		"a.txt", "out/secret.txt", "outfile", "rel/secret.txt", "dir/up/s.txt", "../outside/secret.txt",
		outside + "/secret.txt", "/out/secret.txt", "dir/../../outside/secret.txt", "loop/x", "dangling",
		".git/config", ".GIT/x", "./.tern/x", "out", "rel/", "dir/up", "a.txt/../out/secret.txt",
		"\\x2e\\x2e/outside/secret.txt", "out\x00/secret.txt", " out/secret.txt ", "//out/secret.txt",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		arg, _ := json.Marshal(p)
		for _, r := range []Result{
			call(t, read, `{"path":`+string(arg)+`}`, 0),
			call(t, list, `{"path":`+string(arg)+`}`, 0),
			call(t, write, `{"path":`+string(arg)+`,"content":"FUZZ\n"}`, 0),
			call(t, edit, `{"path":`+string(arg)+`,"old_string":"OUTSIDE-SECRET","new_string":"FUZZ"}`, 0),
		} {
			if strings.Contains(r.Output, "OUTSIDE-SECRET") || strings.Contains(r.Output, "listed-only") && !strings.Contains(p, "listed-only") {
				t.Fatalf("path %q showed the outside directory:\n%s", p, r.Output)
			}
		}
		if after := listTree(t, outside); after != before {
			t.Fatalf("path %q changed the outside directory:\n%s\nwant\n%s", p, after, before)
		}
		if data, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(data) != "[core]\n" {
			t.Fatalf("path %q wrote .git/config: %q", p, data)
		}
	})
}

// listTree renders every file under dir with its content.
func listTree(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(p)
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(": " + string(data))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}
