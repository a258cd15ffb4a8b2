package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gitRepo makes a git repository at dir with files committed, and returns
// a function running git there.
func gitRepo(t *testing.T, dir string, files map[string]string) func(args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	writeFiles(t, dir, files)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "initial")
	return git
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".tern") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return got
}

func TestCheckpointAndUndo(t *testing.T) {
	for _, sub := range []string{".", "pkg"} {
		name := map[string]string{".": "repo root", "pkg": "workspace in a subdirectory"}[sub]
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			root := filepath.Join(repo, sub)
			inWs := func(files map[string]string) map[string]string {
				out := map[string]string{}
				for k, v := range files {
					out[filepath.Join(sub, k)] = v
				}
				return out
			}
			files := inWs(map[string]string{
				".gitignore":     "*.log\n",
				"keep.go":        "package keep\n",
				"edit.go":        "package edit\n// old\n",
				"gone.go":        "package gone\n",
				"dir/nested.txt": "nested\n",
			})
			files["top.txt"] = "outside the workspace when it is pkg\n"
			git := gitRepo(t, repo, files)
			writeFiles(t, root, map[string]string{"uncommitted.txt": "not committed yet\n", "staged.txt": "staged\n"})
			git("add", filepath.Join(sub, "staged.txt"))
			ws, err := NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			indexBefore := git("ls-files", "--stage")
			statusBefore := git("status", "--porcelain")
			before := readTree(t, root)

			var saved []Saved
			cp := NewCheckpoint(ws, "s1", func(_ context.Context, s Saved) { saved = append(saved, s) })
			cp.Save(t.Context())
			cp.Save(t.Context()) // once per session
			if len(saved) != 1 || saved[0].Err != nil || saved[0].Commit == "" {
				t.Fatalf("saved = %+v", saved)
			}
			if got := git("ls-files", "--stage"); got != indexBefore {
				t.Errorf("the checkpoint changed the user's index")
			}
			if got := git("status", "--porcelain"); got != statusBefore {
				t.Errorf("the checkpoint changed git status:\n%s\nwant\n%s", got, statusBefore)
			}
			if got := git("stash", "list"); got != "" {
				t.Errorf("the checkpoint touched the stash list: %q", got)
			}

			// The session changes things, inside the workspace and out.
			writeFiles(t, root, map[string]string{
				"edit.go":           "package edit\n// new\n",
				"created.txt":       "new file\n",
				"newdir/deep/x.txt": "new deep file\n",
				"uncommitted.txt":   "changed too\n",
				"debug.log":         "ignored, left alone\n",
			})
			os.Remove(filepath.Join(root, "gone.go"))
			os.RemoveAll(filepath.Join(root, "dir"))
			writeFiles(t, repo, map[string]string{"top.txt": "changed at the top\n"})

			plan, err := PlanUndo(t.Context(), ws, "s1")
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(plan.Delete)
			slices.Sort(plan.Restore)
			wantRestore := []string{"dir/nested.txt", "edit.go", "gone.go", "uncommitted.txt"}
			if sub == "." {
				wantRestore = []string{"dir/nested.txt", "edit.go", "gone.go", "top.txt", "uncommitted.txt"}
			}
			if want := []string{"created.txt", "newdir/deep/x.txt"}; !slices.Equal(plan.Delete, want) {
				t.Errorf("Delete = %v, want %v", plan.Delete, want)
			}
			if !slices.Equal(plan.Restore, wantRestore) {
				t.Errorf("Restore = %v, want %v", plan.Restore, wantRestore)
			}
			if _, err := plan.Apply(t.Context()); err != nil {
				t.Fatal(err)
			}
			after := readTree(t, root)
			if b, _ := os.ReadFile(filepath.Join(root, "debug.log")); string(b) != "ignored, left alone\n" {
				t.Errorf("an ignored file was touched")
			}
			delete(after, "debug.log")
			if sub != "." {
				if b, _ := os.ReadFile(filepath.Join(repo, "top.txt")); string(b) != "changed at the top\n" {
					t.Errorf("undo touched a file outside the workspace")
				}
			}
			if d := diffMaps(before, after); d != "" {
				t.Errorf("files after undo differ from before the session:\n%s", d)
			}
			if _, err := os.Stat(filepath.Join(root, "newdir")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the emptied directory newdir was left behind")
			}
			if got := git("ls-files", "--stage"); got != indexBefore {
				t.Errorf("undo changed the user's index")
			}
			again, err := PlanUndo(t.Context(), ws, "s1")
			if err != nil || !again.Empty() {
				t.Errorf("a second undo plans %+v, %v; want nothing to do", again, err)
			}
		})
	}
}

func TestCheckpointWithoutGit(t *testing.T) {
	ws := newFixture(t) // not a repository
	var saved Saved
	NewCheckpoint(ws, "s1", func(_ context.Context, s Saved) { saved = s }).Save(t.Context())
	if !errors.Is(saved.Err, ErrNotRepo) {
		t.Errorf("Save outside a repository: %+v, want ErrNotRepo", saved)
	}
	if _, err := PlanUndo(t.Context(), ws, "s1"); !errors.Is(err, ErrNotRepo) {
		t.Errorf("PlanUndo outside a repository = %v, want ErrNotRepo", err)
	}
	t.Setenv("PATH", t.TempDir())
	NewCheckpoint(ws, "s2", func(_ context.Context, s Saved) { saved = s }).Save(t.Context())
	if !errors.Is(saved.Err, ErrNoGit) {
		t.Errorf("Save without git: %+v, want ErrNoGit", saved)
	}
	var none *Checkpoint
	none.Save(t.Context()) // a nil checkpoint does nothing
}

func TestUndoWithoutCheckpoint(t *testing.T) {
	root := t.TempDir()
	gitRepo(t, root, map[string]string{"a.txt": "a\n"})
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PlanUndo(t.Context(), ws, "never-wrote"); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("PlanUndo = %v, want ErrNoCheckpoint", err)
	}
}

func diffMaps(want, got map[string]string) string {
	var b strings.Builder
	for k, v := range want {
		if g, ok := got[k]; !ok {
			b.WriteString("missing " + k + "\n")
		} else if g != v {
			b.WriteString("changed " + k + ": " + g + "\n")
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			b.WriteString("extra " + k + "\n")
		}
	}
	return b.String()
}

// TestSnapshotSeesAChangeInTheSecondOfTheCommit: a file changed in the
// same second as the user's last commit, at the same size, looks unchanged
// by its stat data; git reads it again only because the index was written
// in that second too. The snapshot must keep that protection, or the
// checkpoint records the old content and undo misses the change.
func TestSnapshotSeesAChangeInTheSecondOfTheCommit(t *testing.T) {
	dir := t.TempDir()
	git := gitRepo(t, dir, map[string]string{"edit.go": "package edit\n// old\n"})
	git("config", "core.trustctime", "false") // so the test can date the change itself
	then := time.Now().Add(-time.Hour).Truncate(time.Second)
	file, index := filepath.Join(dir, "edit.go"), filepath.Join(dir, ".git", "index")
	if err := os.Chtimes(file, then, then); err != nil {
		t.Fatal(err)
	}
	git("update-index", "--refresh") // the index records the file at then
	if err := os.Chtimes(index, then, then); err != nil {
		t.Fatal(err)
	}
	// The change: same size, same second, same file.
	if err := os.WriteFile(file, []byte("package edit\n// new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, then, then); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := snapshot(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := git("show", tree+":edit.go"); got != "package edit\n// new\n" {
		t.Errorf("the snapshot holds %q, not the file as it is", got)
	}
}

// TestTurnCheckpoint: a marked turn's first change keeps the files as they
// were before it, which PlanUndoTo compares with; a turn that changes
// nothing keeps none, and a forgotten turn is not known.
func TestTurnCheckpoint(t *testing.T) {
	root := t.TempDir()
	gitRepo(t, root, map[string]string{"a.txt": "one\n"})
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	cp := NewCheckpoint(ws, "s1", nil)
	if _, known, _ := cp.TurnCommit(); known {
		t.Fatal("a turn is known before any was marked")
	}
	cp.MarkTurn()
	cp.Save(t.Context()) // the session's checkpoint, and the first turn's
	writeFiles(t, root, map[string]string{"a.txt": "two\n"})
	cp.MarkTurn()
	cp.Save(t.Context())
	cp.Save(t.Context()) // once a turn
	writeFiles(t, root, map[string]string{"a.txt": "three\n", "b.txt": "new\n"})
	commit, known, err := cp.TurnCommit()
	if !known || commit == "" || err != nil {
		t.Fatalf("the second turn kept nothing: %q %v %v", commit, known, err)
	}
	plan, err := PlanUndoTo(t.Context(), ws, "s1", commit)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Restore, []string{"a.txt"}) || !slices.Equal(plan.Delete, []string{"b.txt"}) {
		t.Fatalf("plan restores %v, deletes %v", plan.Restore, plan.Delete)
	}
	if _, err := plan.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt is %q, want the first turn's", data)
	}
	cp.MarkTurn() // a turn that changes nothing
	if commit, known, _ := cp.TurnCommit(); !known || commit != "" {
		t.Errorf("a turn without a change kept %q (%v)", commit, known)
	}
	cp.ForgetTurn()
	if _, known, _ := cp.TurnCommit(); known {
		t.Error("a forgotten turn is known")
	}

	// Outside git the turn's files cannot be kept, and it says why.
	plain, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cp = NewCheckpoint(plain, "s2", nil)
	cp.MarkTurn()
	cp.Save(t.Context())
	if commit, known, err := cp.TurnCommit(); commit != "" || !known || !errors.Is(err, ErrNotRepo) && !errors.Is(err, ErrNoGit) {
		t.Errorf("outside git: %q %v %v", commit, known, err)
	}
}
