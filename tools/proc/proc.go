// Package proc is what the tools know of the long-lived programs they
// start (MCP servers, language servers): a process group of their own,
// killed whole, and the end of what they write to stderr, which says why
// one stopped.
//
// proc imports nothing of tern.
package proc

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// tailSize is how much of a program's stderr a Tail keeps.
const tailSize = 2 << 10

// Tail keeps the last bytes a program wrote to stderr: set it as the
// command's Stderr. The zero Tail is ready to use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = slices.Clone(t.buf[len(t.buf)-tailSize:])
	}
	return len(p), nil
}

// Last returns the line that says why the program stopped, at most 200
// bytes of it: the last that begins "error", "fatal" or "panic", else
// the last one (a backtrace's last line says least). "" for a nil Tail
// or nothing written.
func (t *Tail) Last() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	for _, l := range slices.Backward(lines) {
		if low := strings.ToLower(strings.TrimSpace(l)); strings.HasPrefix(low, "error") || strings.HasPrefix(low, "fatal") || strings.HasPrefix(low, "panic") {
			line = strings.TrimSpace(l)
			break
		}
	}
	if len(line) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + "…"
	}
	return strings.ToValidUTF8(line, "\uFFFD")
}
