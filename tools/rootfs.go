package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Every file a tool reads or writes is opened through os.Root: the
// directory of the workspace (or of an allowed read area) is opened once,
// and the path inside it is resolved component by component from that
// descriptor, refusing any symbolic link or ".." that leads out. Resolve
// decides what a path may be; the os.Root use makes sure the file really
// opened is still inside, even if a path was swapped for a symbolic link
// after the check.

// errEscaped is the refusal of a path that became a way out of the
// workspace between the check and the use.
func escapedError(rel string, err error) error {
	return &pathError{ErrOutsideWorkspace, fmt.Sprintf(
		"path %q now leads outside the workspace through a symbolic link (%v); use a path inside it", rel, err)}
}

// inRoot opens the root of the area that holds abs, a path Resolve
// accepted, and returns it with abs relative to it. The caller closes it.
func (w *Workspace) inRoot(abs string) (*os.Root, string, error) {
	base := ""
	if Within(w.root, abs) {
		base = w.root
	} else {
		for _, a := range w.allowRead {
			if Within(a.dir, abs) {
				base = a.dir
				break
			}
		}
		if base == "" && w.spillArea != "" && Within(w.spillArea, abs) {
			base = w.spillArea
		}
	}
	if base == "" {
		return nil, "", &pathError{ErrOutsideWorkspace, fmt.Sprintf("path %q is outside the workspace (%s)", abs, w.root)}
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, "", err
	}
	return r, rel, nil
}

// rootErr turns os.Root's refusal of an escaping path into a refusal the
// model can read; other errors pass unchanged.
func rootErr(rel string, err error) error {
	if err != nil && strings.Contains(err.Error(), "escapes from parent") {
		return escapedError(rel, err)
	}
	return err
}

// stat is os.Stat of abs through the root: symbolic links inside the
// workspace are followed, those leading out are refused.
func (w *Workspace) stat(abs string) (fs.FileInfo, error) {
	r, rel, err := w.inRoot(abs)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	info, err := r.Stat(rel)
	return info, rootErr(rel, err)
}

// open opens abs for reading through the root. It never blocks on a FIFO
// or a device; the caller checks the file's type with Stat.
func (w *Workspace) open(abs string) (*os.File, error) {
	r, rel, err := w.inRoot(abs)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return f, rootErr(rel, err)
}

// openRegular opens abs for reading, refusing anything but a regular file
// (checked on the open file, so nothing can be swapped in between).
func (w *Workspace) openRegular(abs string) (*os.File, fs.FileInfo, error) {
	f, err := w.open(abs)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = errNotRegular
	}
	if err != nil {
		f.Close()
		return nil, info, err
	}
	return f, info, nil
}

// errNotRegular refuses directories, FIFOs, devices and sockets.
var errNotRegular = errors.New("not a regular file")

// openDir opens the directory abs as a root of its own.
func (w *Workspace) openDir(abs string) (*os.Root, error) {
	r, rel, err := w.inRoot(abs)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d, err := r.OpenRoot(rel)
	return d, rootErr(rel, err)
}

// sniff reports whether the start of f looks binary, without moving its
// offset.
func sniff(f *os.File) (binary bool, err error) {
	buf := make([]byte, sniffSize)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return false, err
	}
	return looksBinary(buf[:n]), nil
}

// writeAtomic replaces (or creates) the file abs with content and mode,
// through the root: missing directories are made, the content goes to a
// new temporary file beside it, which is then renamed over it. A symbolic
// link at abs is replaced, never followed.
func (w *Workspace) writeAtomic(abs, content string, mode fs.FileMode) error {
	r, rel, err := w.inRoot(abs)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := filepath.Dir(rel)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return rootErr(rel, err)
	}
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = filepath.Join(dir, fmt.Sprintf(".tern-%s-%d-%d", filepath.Base(rel), os.Getpid(), w.now().UnixNano()+int64(i)))
		f, err = r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return rootErr(rel, err)
		}
		break
	}
	defer r.Remove(tmp) // fails harmlessly after the rename
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if err := r.Chmod(tmp, mode); err != nil {
		return err
	}
	return rootErr(rel, r.Rename(tmp, rel))
}
