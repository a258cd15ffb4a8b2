//go:build !unix

package proc

import "os/exec"

// Isolate leaves cmd as it is: process groups are a Unix notion.
func Isolate(cmd *exec.Cmd) {}

// KillGroup does nothing: closing the program's input, and killing the
// program itself, is what stops it.
func KillGroup(pid int) error { return nil }
