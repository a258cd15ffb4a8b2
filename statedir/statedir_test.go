package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestWhere: a workspace tern may write keeps its state in .tern; the
// home directory and / are kept clean unless the user agreed (MakeIn);
// the state of a workspace kept out goes to tern's own directory under
// XDG_STATE_HOME, else ~/.local/state, and stays there.
func TestWhere(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", xdg)

	ws := t.TempDir()
	loc, err := Where(ws)
	if err != nil || loc.Outside || loc.Dir != filepath.Join(ws, Name) || loc.Exists {
		t.Errorf("a writable workspace: %+v, %v", loc, err)
	}

	loc, err = Where(home)
	if err != nil || !loc.Outside || !loc.Ask || loc.Exists || !strings.HasPrefix(loc.Dir, filepath.Join(xdg, "tern", "workspaces")+string(filepath.Separator)) ||
		loc.Why != "the workspace is your home directory" {
		t.Fatalf("the home directory: %+v, %v", loc, err)
	}
	// Nobody asked: Dir keeps .tern out of it.
	dir, err := Dir(home)
	if err != nil || dir != loc.Dir {
		t.Fatalf("Dir(home) = %q, %v; want %q", dir, err, loc.Dir)
	}
	if _, err := os.Stat(filepath.Join(home, Name)); err == nil {
		t.Error("Dir made .tern in the home directory")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "WORKSPACE")); !strings.HasPrefix(string(data), home+"\n") {
		t.Errorf("WORKSPACE = %q", data)
	}
	if loc, _ := Where(home); !loc.Outside || !loc.Exists || loc.Ask {
		t.Errorf("once made, tern's own directory is used without asking: %+v", loc)
	}
	if p, err := File(home, "tern.db"); err != nil || p != filepath.Join(dir, "tern.db") {
		t.Errorf("File = %q, %v", p, err)
	}

	// Another home: the user agreed to .tern there.
	other := t.TempDir()
	t.Setenv("HOME", other)
	if _, err := MakeIn(other); err != nil {
		t.Fatal(err)
	}
	if loc, _ := Where(other); loc.Outside || loc.Dir != filepath.Join(other, Name) {
		t.Errorf("after MakeIn: %+v", loc)
	}

	// Without XDG_STATE_HOME, under ~/.local/state.
	t.Setenv("XDG_STATE_HOME", "")
	third := t.TempDir()
	t.Setenv("HOME", third)
	if loc, _ := Where(third); !strings.HasPrefix(loc.Dir, filepath.Join(third, ".local", "state", "tern", "workspaces")) {
		t.Errorf("without XDG_STATE_HOME: %s", loc.Dir)
	}
	// Without either, a workspace kept out has nowhere to go.
	t.Setenv("HOME", "")
	if _, err := KeepOut(t.TempDir(), "test"); err == nil || !strings.Contains(err.Error(), "neither XDG_STATE_HOME nor HOME is set") {
		t.Errorf("KeepOut without HOME: %v", err)
	}
}

// TestReadOnlyWorkspace: a workspace tern cannot write keeps its state in
// tern's own directory; where the kernel says even that cannot be
// written, Check says which directory.
func TestReadOnlyWorkspace(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes a directory whatever its mode; cmd/tern's TestReadOnlyWorkspace mounts one read-only")
	}
	home, xdg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", xdg)
	ws := t.TempDir()
	os.Chmod(ws, 0o555)
	t.Cleanup(func() { os.Chmod(ws, 0o755) })
	loc, err := Where(ws)
	if err != nil || !loc.Outside || loc.Why != "the workspace is read-only" || loc.Check() != nil {
		t.Fatalf("%+v, %v", loc, err)
	}
	if p, err := File(ws, "index.db"); err != nil || !strings.HasPrefix(p, xdg) {
		t.Errorf("File = %q, %v", p, err)
	}
	os.Chmod(xdg, 0o555)
	t.Cleanup(func() { os.Chmod(xdg, 0o755) })
	if err := (Location{Dir: filepath.Join(xdg, "x", "y")}).Check(); err == nil || !strings.Contains(err.Error(), xdg+" cannot be written") {
		t.Errorf("Check of an unwritable state home: %v", err)
	}
}
