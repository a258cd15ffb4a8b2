//go:build !unix

package mcp

import "os/exec"

// isolate leaves cmd as it is: process groups are a Unix notion.
func isolate(cmd *exec.Cmd) {}

// killGroup does nothing: closing the server's input and the SDK's
// terminate-then-kill already stop the server process itself.
func killGroup(pid int) error { return nil }
