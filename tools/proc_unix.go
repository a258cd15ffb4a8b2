//go:build unix

package tools

import (
	"errors"
	"os/exec"
	"syscall"
)

// inGroup makes cmd start in a process group of its own, so that stopping
// it stops everything it started.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (or, when hard, SIGKILL) to the process group
// of cmd, a started command.
func signalGroup(cmd *exec.Cmd, hard bool) error {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // the group is gone already
	}
	return err
}

// groupAlive reports whether any process of cmd's group still runs.
func groupAlive(cmd *exec.Cmd) bool {
	return syscall.Kill(-cmd.Process.Pid, 0) == nil
}
