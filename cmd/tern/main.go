// Command tern is a terminal coding agent for small local models served by
// Ollama. This package parses flags and config and wires the concrete types
// together; it is the only package that knows them all.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
