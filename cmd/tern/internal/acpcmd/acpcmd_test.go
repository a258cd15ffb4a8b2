package acpcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session may open in a root or below it, never outside, whatever
// symbolic links say.
func TestPlaces(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755)
	os.Symlink(other, filepath.Join(root, "escape"))
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	p, err := NewPlaces([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, err string }{
		{root, ""},
		{filepath.Join(root, "sub", "deep"), ""},
		{filepath.Join(root, "sub", "..", "sub"), ""},
		{other, "outside the directories tern acp may work in"},
		{filepath.Join(root, "escape"), "outside the directories"},
		{root + "-sibling", "no such file"},
		{filepath.Join(root, "file"), "not a directory"},
		{"relative", "not an absolute path"},
	} {
		err := p.Check(tt.dir)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Check(%s) = %v, want %q", tt.dir, err, tt.err)
		}
	}
	if _, err := NewPlaces([]string{filepath.Join(root, "missing")}); err == nil {
		t.Error("a missing --root was accepted")
	}
}
