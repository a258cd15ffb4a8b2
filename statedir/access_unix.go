//go:build unix

package statedir

import (
	"errors"

	"golang.org/x/sys/unix"
)

// writable reports whether the user may create files in dir, asking the
// kernel (access(2)) without writing anything: a read-only mount, or a
// directory of another user, is not.
func writable(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }

// isReadOnlyFS reports whether err says the file system is mounted
// read-only.
func isReadOnlyFS(err error) bool { return errors.Is(err, unix.EROFS) }
