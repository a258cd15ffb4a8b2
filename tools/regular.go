package tools

import (
	"fmt"
	"io/fs"
	"os"
)

// openRegular opens a file for reading only if it is a regular file. The
// open itself does not wait: a named pipe with no writer, or a device,
// would block a plain open (and a read) forever, past any cancellation.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, errNotRegular(info.Mode()))
	}
	return f, nil
}

// errNotRegular says what a non-regular, non-directory file is.
func errNotRegular(m fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO), not a regular file"
	case m&fs.ModeSocket != 0:
		kind = "a socket, not a regular file"
	case m&fs.ModeDevice != 0:
		kind = "a device, not a regular file"
	}
	return fmt.Errorf("%s", kind)
}
