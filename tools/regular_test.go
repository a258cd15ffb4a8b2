//go:build unix

package tools

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGrepNamedPipe: a FIFO with no writer, given as grep's path or found
// in a directory, neither hangs grep nor is read.
func TestGrepNamedPipe(t *testing.T) {
	ws := newFixture(t)
	fifo := filepath.Join(ws.Root(), "agent", "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	tool := NewGrep(ws)
	for _, tt := range []struct{ args, want string }{
		{`{"pattern":"retry","path":"agent/pipe.go"}`, "is a named pipe (FIFO), not a regular file"},
		{`{"pattern":"retry","path":"agent"}`, "agent/loop.go"},
		{`{"pattern":"retry"}`, "agent/loop.go"},
	} {
		done := make(chan Result, 1)
		go func() { done <- call(t, tool, tt.args, 0) }()
		select {
		case r := <-done:
			if !strings.Contains(r.Output, tt.want) {
				t.Errorf("%s: output lacks %q:\n%s", tt.args, tt.want, r.Output)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: grep hangs on a FIFO", tt.args)
		}
	}
}
