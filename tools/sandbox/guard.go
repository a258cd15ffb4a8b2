package sandbox

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// Landlock cannot keep .git/hooks and .git/config read-only inside the
// writable workspace, but when a command ends nothing it started is left
// running (the reaper sees to that, and no process leaves the Landlock
// domain), so tern can look afterwards: Guard notes them before a command
// and puts back after it whatever the command changed. .tern is not
// guarded this way: tern itself writes there while commands run.

// maxGuarded caps the bytes Guard keeps; a hooks directory larger than
// this is not guarded (its gap stays listed by Gaps).
const maxGuarded = 4 << 20

// snapshot is what a guarded path held: a file's bytes and mode, or a
// directory's files.
type snapshot struct {
	exists bool
	mode   fs.FileMode
	data   []byte
	files  map[string]snapshot
}

// Guard notes git's hooks and config before a command runs, under
// Landlock, and returns the function to call when it has ended: it puts
// back what the command changed and says so, one line each, as Blocked
// does. Under bubblewrap, or unconfined, there is nothing to do.
func (s *Sandbox) Guard() (restore func() []string) {
	if s.Mechanism() != Landlock {
		return func() []string { return nil }
	}
	var paths []string
	for _, p := range s.protected {
		if filepath.Base(p) != ".tern" {
			paths = append(paths, p)
		}
	}
	before := map[string]snapshot{}
	size := 0
	for _, p := range paths {
		snap, n := take(p)
		if size += n; size > maxGuarded {
			return func() []string { return nil }
		}
		before[p] = snap
	}
	return func() []string {
		var out []string
		for _, p := range paths {
			if after, _ := take(p); !same(before[p], after) {
				if err := put(p, before[p]); err != nil {
					out = append(out, fmt.Sprintf("blocked by the sandbox: the command changed %s, and tern could not put it back (%v); tell the user", home(p), err))
					continue
				}
				out = append(out, fmt.Sprintf("blocked by the sandbox: the command changed %s, which commands may not change; tern put it back", home(p)))
			}
		}
		return out
	}
}

// take notes what path holds, and how many bytes that is.
func take(path string) (snapshot, int) {
	info, err := os.Lstat(path)
	if err != nil {
		return snapshot{}, 0
	}
	snap := snapshot{exists: true, mode: info.Mode()}
	switch {
	case info.Mode().IsRegular():
		snap.data, _ = os.ReadFile(path)
		return snap, len(snap.data)
	case info.IsDir():
		entries, _ := os.ReadDir(path)
		snap.files = map[string]snapshot{}
		n := 0
		for _, e := range entries {
			child, size := take(filepath.Join(path, e.Name()))
			snap.files[e.Name()] = child
			n += size
		}
		return snap, n
	case info.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		snap.data = []byte(target)
	}
	return snap, len(snap.data)
}

func same(a, b snapshot) bool {
	if a.exists != b.exists || a.mode != b.mode || !bytes.Equal(a.data, b.data) || len(a.files) != len(b.files) {
		return false
	}
	for name, f := range a.files {
		if g, ok := b.files[name]; !ok || !same(f, g) {
			return false
		}
	}
	return true
}

// put makes path hold snap again.
func put(path string, snap snapshot) error {
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	switch {
	case !snap.exists:
		return nil
	case snap.mode.IsRegular():
		if err := os.WriteFile(path, snap.data, snap.mode.Perm()); err != nil {
			return err
		}
		return os.Chmod(path, snap.mode.Perm())
	case snap.mode&fs.ModeSymlink != 0:
		return os.Symlink(string(snap.data), path)
	case snap.mode.IsDir():
		if err := os.MkdirAll(path, snap.mode.Perm()); err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(snap.files)) {
			if err := put(filepath.Join(path, name), snap.files[name]); err != nil {
				return err
			}
		}
	}
	return nil
}
