// Package statedir is the .tern directory at a workspace's root, where tern
// keeps its state: the session store (tern.db), the index (index.db),
// spilled tool output (outputs/) and drafts. A repository decides what is in
// its tree, so it could ship .tern, or a file in it, as a symbolic link that
// points elsewhere, and make tern write outside the workspace. This package
// refuses that: .tern, the files tern opens in it and their SQLite
// companions must be real files and directories, not links.
//
// It imports nothing internal.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Name is the directory's name at the workspace root.
const Name = ".tern"

// ErrLink is wrapped by every refusal of a symbolic link where tern keeps
// its state.
var ErrLink = errors.New("symbolic link in tern's state directory")

// Dir returns root/.tern, creating it when missing with a .gitignore of
// "*", so nothing of tern's shows up in git. An existing .gitignore is kept
// as it is.
func Dir(root string) (string, error) {
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

// File returns root/.tern/name (name may hold slashes) after making sure
// that .tern exists, and that neither the file, nor any directory between
// .tern and it, nor the companions SQLite keeps next to a database (-wal,
// -shm, -journal), is a symbolic link. Missing directories are created.
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
// root/.tern/name and whether that file exists, refusing links as File
// does. Commands that only look (tern doctor) use it.
func Existing(root, name string) (path string, exists bool, err error) {
	dir := filepath.Join(root, Name)
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

// Subdir returns root/.tern/name, a directory, creating it when missing
// and refusing it when it, or .tern, is a symbolic link.
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
