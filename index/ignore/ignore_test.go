package ignore

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIgnored(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore":           "*.log\nbuild/\n/secret.txt\n!keep.log\n",
		"sub/.gitignore":       "local.txt\n!important.log\n",
		"sub/deep/.ternignore": "*.gen.go\n",
		".git/info/exclude":    "scratch/\n",
	})
	r := New(root)
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"main.go", false, false},
		{"debug.log", false, true},
		{"keep.log", false, false},
		{"sub/debug.log", false, true},
		{"sub/important.log", false, false},
		{"build", true, true},
		{"build/out.bin", false, true},
		{"pkg/build/x.go", false, true},
		{"secret.txt", false, true},
		{"sub/secret.txt", false, false},
		{"sub/local.txt", false, true},
		{"local.txt", false, false},
		{"sub/deep/api.gen.go", false, true},
		{"api.gen.go", false, false},
		{"scratch/notes.md", false, true},
		{".git", true, true},
		{".git/config", false, true},
		{".tern/tern.db", false, true},
		{".github/workflows/ci.yml", false, false},
	}
	for _, tt := range tests {
		if got := r.Ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("Ignored(%q, %v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

func TestWalkSkipsIgnoredAndDoesNotFollowLinks(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore":        "node_modules/\n*.tmp\n",
		"a.go":              "package a",
		"b.tmp":             "x",
		"node_modules/x.js": "x",
		"pkg/c.go":          "package pkg",
		".git/HEAD":         "ref",
	})
	if err := os.Symlink(root, filepath.Join(root, "pkg", "loop")); err != nil {
		t.Fatal(err)
	}
	r := New(root)
	var got []string
	err := r.Walk(t.Context(), root, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", ".gitignore", "a.go", "pkg", "pkg/c.go", "pkg/loop"}
	if !slices.Equal(got, want) {
		t.Errorf("walk = %q, want %q", got, want)
	}
}
