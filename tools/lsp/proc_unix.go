//go:build unix

package lsp

import (
	"errors"
	"os/exec"
	"syscall"
)

// isolate starts cmd in a process group of its own: Ctrl+C in tern's
// terminal then cancels tern's turn without killing the servers, and
// killGroup can stop whatever the server started.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of the process group led by pid. A group
// that no longer exists is not an error.
func killGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
