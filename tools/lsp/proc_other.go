//go:build !unix

package lsp

import "os/exec"

// isolate leaves cmd as it is: process groups are a Unix notion.
func isolate(cmd *exec.Cmd) {}

// killGroup does nothing: closing the server's input stops the server
// itself.
func killGroup(pid int) error { return nil }
