package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoThroughSwappedLinks: after the checkpoint, the session (or a
// command it ran) puts symbolic links to a directory outside the
// workspace where undo will restore and delete files: a directory whose
// file is restored, a restored file itself, and a directory of files
// undo deletes. Undo must restore inside the workspace and neither write
// nor delete anything outside it.
func TestUndoThroughSwappedLinks(t *testing.T) {
	_, _ = gitWorkspace(t)
	repo, outside := t.TempDir(), t.TempDir()
	gitRepo(t, repo, map[string]string{"d/f.txt": "orig d\n", "g.txt": "orig g\n"})
	outsideFiles := map[string]string{"f.txt": "OUTSIDE f\n", "g.txt": "OUTSIDE g\n", "new.txt": "OUTSIDE new\n"}
	writeFiles(t, outside, outsideFiles)
	ws, err := NewWorkspace(repo)
	if err != nil {
		t.Fatal(err)
	}
	cp := NewCheckpoint(ws, "s1", nil)
	cp.Save(t.Context())

	// The session's changes: d and g.txt become links outside, and n/
	// is a new directory that then becomes a link outside.
	writeFiles(t, repo, map[string]string{"n/new.txt": "created\n"})
	for name, target := range map[string]string{"d": outside, "g.txt": filepath.Join(outside, "g.txt")} {
		if err := os.RemoveAll(filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := PlanUndo(t.Context(), ws, "s1")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(repo, "n"))
	if err := os.Symlink(outside, filepath.Join(repo, "n")); err != nil {
		t.Fatal(err)
	}
	// n/new.txt cannot be deleted through the link; that is said, and the
	// rest is still undone.
	if _, err = plan.Apply(t.Context()); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("undo through the link n: %v; want a refusal", err)
	}

	if got := readTree(t, outside); !equalMaps(got, outsideFiles) {
		t.Errorf("undo changed the outside directory: %v", got)
	}
	for name, want := range map[string]string{"d/f.txt": "orig d\n", "g.txt": "orig g\n"} {
		p := filepath.Join(repo, name)
		info, err := os.Lstat(p)
		data, _ := os.ReadFile(p)
		if err != nil || !info.Mode().IsRegular() || string(data) != want {
			t.Errorf("%s not restored as a file inside the workspace: %v %q", name, err, data)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
