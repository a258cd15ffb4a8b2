package ignore

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepTree makes a chain of depth nested directories under a fresh root,
// with a file at the bottom, and returns the root and the file's path
// relative to it.
func deepTree(tb testing.TB, depth int, gitignore string) (root, file string) {
	tb.Helper()
	root = tb.TempDir()
	if gitignore != "" {
		os.WriteFile(filepath.Join(root, ".gitignore"), []byte(gitignore), 0o644)
	}
	rel := strings.TrimSuffix(strings.Repeat("d/", depth), "/")
	if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
		tb.Fatal(err)
	}
	file = rel + "/leaf.go"
	if err := os.WriteFile(filepath.Join(root, file), []byte("package leaf\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return root, file
}

func TestWalkDeepTree(t *testing.T) {
	root, file := deepTree(t, 1000, "*.log\nbuild/\n")
	r := New(root)
	var last string
	n := 0
	if err := r.Walk(t.Context(), root, func(rel string, d fs.DirEntry) error {
		n++
		last = rel
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if last != file || n != 1003 {
		t.Errorf("walk saw %d entries, last %q; want 1003 ending in the leaf", n, last)
	}
	if r.Ignored(file, false) || !r.Ignored(strings.TrimSuffix(file, "leaf.go")+"x.log", false) {
		t.Error("rules wrong at depth 1000")
	}
}

// BenchmarkWalkDeep walks a chain 1,000 directories deep: before the
// rules were matched per directory, this took minutes.
func BenchmarkWalkDeep(b *testing.B) {
	root, _ := deepTree(b, 1000, "*.log\nbuild/\n")
	for b.Loop() {
		r := New(root)
		if err := r.Walk(b.Context(), root, func(string, fs.DirEntry) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIgnoredDeep checks one path 1,000 directories deep.
func BenchmarkIgnoredDeep(b *testing.B) {
	root, file := deepTree(b, 1000, "*.log\nbuild/\n")
	r := New(root)
	for b.Loop() {
		if r.Ignored(file, false) {
			b.Fatal("ignored")
		}
	}
}
