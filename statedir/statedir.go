// Package statedir is where tern keeps a workspace's state: the session
// store (tern.db), the index (index.db), spilled tool output (outputs/)
// and drafts. That is the .tern directory at the workspace's root, or,
// for a workspace tern cannot write (a read-only checkout) or one it
// keeps clean (the user's home directory or the file system root, unless
// the user agreed: MakeIn), a directory of tern's own under the user's
// state directory ($XDG_STATE_HOME/tern/workspaces, else
// ~/.local/state/tern/workspaces), one per workspace.
//
// A repository decides what is in its tree, so it could ship .tern, or a
// file in it, as a symbolic link that points elsewhere, and make tern
// write outside the workspace. This package refuses that: .tern, the
// files tern opens in it and their SQLite companions must be real files
// and directories, not links.
//
// It reads the environment's XDG_STATE_HOME and HOME, as os.UserHomeDir
// does, and imports nothing internal.
package statedir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Name is the directory's name at the workspace root.
const Name = ".tern"

// ErrLink is wrapped by every refusal of a symbolic link where tern keeps
// its state.
var ErrLink = errors.New("symbolic link in tern's state directory")

// Location is where a workspace's state is kept.
type Location struct {
	// Dir is the state directory: root/.tern, or one of tern's own under
	// the user's state directory (Outside).
	Dir     string
	Outside bool
	// Why says why the state is outside the workspace: "the workspace is
	// read-only", "the workspace is your home directory"; "" inside it.
	Why string
	// Exists is set when Dir exists already.
	Exists bool
	// Ask is set when the workspace is the user's home directory or the
	// file system root and has no state yet: tern keeps .tern out of it
	// (Outside) unless the user agrees to it there (MakeIn).
	Ask bool
}

// Where says where the state of the workspace at root is kept, creating
// nothing: root/.tern when it is there and writable; else tern's own
// directory for root when it exists already; else root/.tern when tern
// may make it there, tern's own directory when it may not (root is
// read-only, or is the home directory or /). The error says why there
// is nowhere to keep it (a read-only workspace and no HOME).
func Where(root string) (Location, error) {
	in := filepath.Join(root, Name)
	info, err := os.Lstat(in)
	if err == nil && info.IsDir() {
		if writable(in) {
			return Location{Dir: in, Exists: true}, nil
		}
		return outside(root, fmt.Sprintf("%s is read-only", in))
	}
	if err == nil {
		return Location{Dir: in, Exists: true}, nil // a link or a file: File and Dir refuse it
	}
	own, err := ownDir(root)
	if err == nil {
		if _, err := os.Stat(own); err == nil {
			return Location{Dir: own, Outside: true, Exists: true, Why: whyOwn(own)}, nil
		}
	}
	switch {
	case isHomeOrTop(root):
		loc, err := outside(root, "the workspace is "+describeTop(root))
		loc.Ask = true
		return loc, err
	case !writable(root):
		return outside(root, "the workspace is read-only")
	}
	return Location{Dir: in}, nil
}

// Check says whether tern can write its state at l: nil, or which
// directory is not writable. It writes nothing.
func (l Location) Check() error {
	d := l.Dir
	for {
		if _, err := os.Stat(d); err == nil {
			break
		}
		if filepath.Dir(d) == d {
			break
		}
		d = filepath.Dir(d)
	}
	if !writable(d) {
		return fmt.Errorf("%s cannot be written (where tern would keep the state, in %s)", d, l.Dir)
	}
	return nil
}

// outside is the Location of tern's own directory for root, and why.
func outside(root, why string) (Location, error) {
	own, err := ownDir(root)
	if err != nil {
		return Location{Why: why}, fmt.Errorf("%s, and %w", why, err)
	}
	_, serr := os.Stat(own)
	return Location{Dir: own, Outside: true, Why: why, Exists: serr == nil}, nil
}

// ownDir is tern's own state directory for the workspace at root:
// workspaces/NAME-HASH under $XDG_STATE_HOME/tern, else under
// ~/.local/state/tern, where HASH tells apart workspaces of one name.
func ownDir(root string) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := os.Getenv("HOME")
		if home == "" {
			return "", errors.New("neither XDG_STATE_HOME nor HOME is set for a state directory of tern's own: set one")
		}
		base = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(root))
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '_'
		}
		return r
	}, filepath.Base(root))
	return filepath.Join(base, "tern", "workspaces", name+"-"+hex.EncodeToString(sum[:6])), nil
}

// isHomeOrTop reports whether root is the user's home directory or the
// file system root: directories tern does not fill with .tern unasked.
func isHomeOrTop(root string) bool {
	if filepath.Dir(root) == root {
		return true
	}
	home := os.Getenv("HOME")
	if home == "" {
		return false
	}
	a, err1 := filepath.EvalSymlinks(root)
	b, err2 := filepath.EvalSymlinks(home)
	return err1 == nil && err2 == nil && a == b
}

func describeTop(root string) string {
	if filepath.Dir(root) == root {
		return "the file system root"
	}
	return "your home directory"
}

// Dir returns the directory where root's state is kept (Where), creating
// it when missing: root/.tern with a .gitignore of "*", so nothing of
// tern's shows up in git (an existing .gitignore is kept as it is), or
// tern's own directory, which holds a file naming the workspace.
func Dir(root string) (string, error) {
	loc, err := Where(root)
	if err != nil {
		return "", err
	}
	if loc.Outside {
		return makeOwn(root, loc.Dir, loc.Why)
	}
	dir, err := makeIn(root)
	if errors.Is(err, fs.ErrPermission) || isReadOnlyFS(err) {
		// Writable as far as access(2) said, but not for mkdir.
		if loc, oerr := outside(root, "the workspace is read-only"); oerr == nil {
			return makeOwn(root, loc.Dir, loc.Why)
		}
	}
	return dir, err
}

// MakeIn makes root/.tern, where root's state is then kept: for a
// workspace where Where asks first (Ask), once the user agreed.
func MakeIn(root string) (string, error) { return makeIn(root) }

// KeepOut makes tern's own state directory for root, where root's state
// is then kept: for a workspace where Where asks first (Ask), once the
// user declined .tern there (or could not be asked); why says so.
func KeepOut(root, why string) (string, error) {
	own, err := ownDir(root)
	if err != nil {
		return "", err
	}
	return makeOwn(root, own, why)
}

// makeIn makes root/.tern with its .gitignore.
func makeIn(root string) (string, error) {
	dir := filepath.Join(root, Name)
	if err := checkNotLink(dir, true); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	if err := checkNotLink(dir, true); err != nil { // made by someone else meanwhile
		return "", err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	switch {
	case errors.Is(err, fs.ErrExist):
		// kept; O_EXCL never follows a link, so nothing was written through one
	case err != nil:
		return "", fmt.Errorf("create %s: %w", filepath.Join(dir, ".gitignore"), err)
	default:
		_, err = f.WriteString("*\n")
		if err := errors.Join(err, f.Close()); err != nil {
			return "", fmt.Errorf("write %s: %w", f.Name(), err)
		}
	}
	return dir, nil
}

// workspaceFile, in tern's own directory for a workspace, names the
// workspace on its first line and says why its state is kept there on
// the second.
const workspaceFile = "WORKSPACE"

// makeOwn makes tern's own directory dir for root, private to the user,
// noting why.
func makeOwn(root, dir, why string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create tern's state directory: %w", err)
	}
	if err := checkNotLink(dir, true); err != nil {
		return "", err
	}
	name := filepath.Join(dir, workspaceFile)
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(name, []byte(root+"\n"+why+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("write %s: %w", name, err)
		}
	}
	return dir, nil
}

// whyOwn reads why tern's own directory dir holds a workspace's state.
func whyOwn(dir string) string {
	data, _ := os.ReadFile(filepath.Join(dir, workspaceFile))
	lines := strings.Split(string(data), "\n")
	if len(lines) > 1 && strings.TrimSpace(lines[1]) != "" {
		return strings.TrimSpace(lines[1])
	}
	return "tern keeps this workspace's state outside it"
}

// File returns the path of name (which may hold slashes) in root's state
// directory (Dir) after making sure that the directory exists, and that
// neither the file, nor any directory between the state directory and
// it, nor the companions SQLite keeps next to a database (-wal, -shm,
// -journal), is a symbolic link. Missing directories are created.
func File(root, name string) (string, error) {
	dir, err := Dir(root)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.FromSlash(name))
	if rel, err := filepath.Rel(dir, path); err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return "", fmt.Errorf("%s is not inside %s", name, dir)
	}
	// Each directory between .tern and the file.
	for d := filepath.Dir(path); d != dir; d = filepath.Dir(d) {
		if err := checkNotLink(d, true); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	for d := filepath.Dir(path); d != dir; d = filepath.Dir(d) {
		if err := checkNotLink(d, true); err != nil {
			return "", err
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := checkNotLink(p, false); err != nil {
			return "", err
		}
	}
	return path, nil
}

// checkNotLink refuses p when it is a symbolic link, or when it exists but
// is not a directory (wantDir) or not a regular file. A missing p passes.
func checkNotLink(p string, wantDir bool) error {
	info, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		return fmt.Errorf("%s is a symbolic link (to %s); tern keeps its state only in real files inside the workspace, so a repository cannot redirect its writes. Remove the link and run tern again: %w", p, target, ErrLink)
	case wantDir && !info.IsDir():
		return fmt.Errorf("%s is not a directory; tern keeps its state there. Move it away and run tern again", p)
	case !wantDir && !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file; tern keeps its state there. Move it away and run tern again", p)
	}
	return nil
}

// Existing is File without creating anything: it returns the path of
// name in root's state directory (Where) and whether that file exists,
// refusing links as File does. Commands that only look (tern doctor,
// completions) use it.
func Existing(root, name string) (path string, exists bool, err error) {
	loc, err := Where(root)
	if err != nil {
		return "", false, err
	}
	dir := loc.Dir
	path = filepath.Join(dir, filepath.FromSlash(name))
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if err := checkNotLink(d, true); err != nil {
			return "", false, err
		}
		if d == dir {
			break
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := checkNotLink(p, false); err != nil {
			return "", false, err
		}
	}
	_, err = os.Lstat(path)
	return path, err == nil, nil
}

// Subdir returns the directory name in root's state directory (Dir),
// creating it when missing and refusing it when it, or .tern, is a
// symbolic link.
func Subdir(root, name string) (string, error) {
	dir, err := Dir(root)
	if err != nil {
		return "", err
	}
	sub := filepath.Join(dir, filepath.Base(name))
	if err := checkNotLink(sub, true); err != nil {
		return "", err
	}
	if err := os.Mkdir(sub, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create %s: %w", sub, err)
	}
	return sub, checkNotLink(sub, true)
}
