package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDirCreatesWithGitignore(t *testing.T) {
	root := t.TempDir()
	dir, err := Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(data) != "*\n" {
		t.Errorf(".gitignore = %q", data)
	}
	p, err := File(root, "index.db")
	if err != nil || p != filepath.Join(root, ".tern", "index.db") {
		t.Errorf("File = %q, %v", p, err)
	}
}

// TestLinksRefused ships .tern, or a file tern opens in it, as a link to
// a directory outside the workspace; nothing may be created out there.
func TestLinksRefused(t *testing.T) {
	tests := []struct {
		name  string
		links map[string]string // link (relative to root) → target name in outside
		call  func(root string) error
	}{
		{".tern to outside", map[string]string{".tern": "dir"}, func(root string) error { _, err := Dir(root); return err }},
		{".tern for a file", map[string]string{".tern": "dir"}, func(root string) error { _, err := File(root, "tern.db"); return err }},
		{"tern.db", map[string]string{".tern/tern.db": "tern.db"}, func(root string) error { _, err := File(root, "tern.db"); return err }},
		{"wal", map[string]string{".tern/index.db-wal": "wal"}, func(root string) error { _, err := File(root, "index.db"); return err }},
		{"shm", map[string]string{".tern/index.db-shm": "shm"}, func(root string) error { _, err := File(root, "index.db"); return err }},
		{"outputs", map[string]string{".tern/outputs": "dir"}, func(root string) error { _, err := Subdir(root, "outputs"); return err }},
		{"existing", map[string]string{".tern/tern.db": "tern.db"}, func(root string) error { _, _, err := Existing(root, "tern.db"); return err }},
		{"existing dir", map[string]string{".tern": "dir"}, func(root string) error { _, _, err := Existing(root, "tern.db"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			os.Mkdir(filepath.Join(outside, "dir"), 0o755)
			for link, target := range tt.links {
				os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755)
				if err := os.Symlink(filepath.Join(outside, target), filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			err := tt.call(root)
			if !errors.Is(err, ErrLink) {
				t.Errorf("err = %v; want a refusal of the link", err)
			}
			entries, _ := os.ReadDir(filepath.Join(outside, "dir"))
			if len(entries) > 0 {
				t.Errorf("something was created outside: %v", entries)
			}
		})
	}
}
