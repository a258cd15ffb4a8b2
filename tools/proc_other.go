//go:build !unix

package tools

import "os/exec"

// inGroup is a no-op where process groups do not exist; only the command
// itself is stopped there.
func inGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, hard bool) error { return cmd.Process.Kill() }

func groupAlive(cmd *exec.Cmd) bool { return false }
