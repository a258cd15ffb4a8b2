// Command tern is a terminal coding agent for small local models served by
// Ollama. This package parses flags and config and wires the concrete types
// together; it is the only package that knows them all.
package main

//go:generate go test -run ^TestCommandsReference$ . -args -update-docs

import (
	"context"
	"os"

	"github.com/ternhq/tern/tools"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == tools.ReaperFlag {
		// tern runs each command through itself, as a child subreaper.
		os.Exit(tools.RunReaper(os.Args[2:]))
	}
	os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
