//go:build unix

package sandbox

import "golang.org/x/sys/unix"

// canWrite reports whether this process may write path, as the kernel's
// permission checks say.
func canWrite(path string) bool { return unix.Access(path, unix.W_OK) == nil }
