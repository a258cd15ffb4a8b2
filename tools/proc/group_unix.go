//go:build unix

package proc

import (
	"errors"
	"os/exec"
	"syscall"
)

// Isolate starts cmd in a process group of its own: Ctrl+C in tern's
// terminal then cancels tern's turn without killing the program, and
// KillGroup can stop whatever it started (npx starts node, uvx starts
// python, typescript-language-server starts tsserver). Where the system
// can (Linux), the program is also killed when tern dies without
// stopping it, killed itself.
func Isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// KillGroup kills what is left of the process group led by pid. A group
// that no longer exists is not an error.
func KillGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
