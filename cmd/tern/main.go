// Command tern is a terminal coding agent for small local models served by
// Ollama. This package parses flags and config and wires the concrete types
// together; it is the only package that knows them all.
package main

//go:generate go test -run ^TestCommandsReference$ . -args -update-docs

import (
	"context"
	"os"

	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/sandbox"
)

func main() {
	if code, ok := runHelper(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// runHelper runs tern's binary as one of the helpers tern starts for
// itself when it runs a command: the reaper, a child subreaper that
// outlives nothing it starts, and the sandbox's Landlock helper, which
// confines itself before it executes the command. ok is false when args
// start tern itself.
func runHelper(args []string) (code int, ok bool) {
	if len(args) > 1 {
		switch args[1] {
		case tools.ReaperFlag:
			return tools.RunReaper(args[2:]), true
		case sandbox.HelperFlag:
			return sandbox.RunHelper(args[2:]), true
		}
	}
	return 0, false
}
