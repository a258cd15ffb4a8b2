package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// BenchmarkTUIStartup times the TUI as a process, from exec to its first
// frame on a terminal: script(1) gives it a pseudo-terminal, and the frame
// counts as drawn when the welcome line arrives. It reports the wall time
// and, steadier on a busy machine, the CPU tern had used by then.
func BenchmarkTUIStartup(b *testing.B) {
	if _, err := exec.LookPath("script"); err != nil {
		b.Skip("script(1) (util-linux) is not installed: no pseudo-terminal to start the TUI on")
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	srv := ollamatest.New(b, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	env := processEnv(b, srv.URL(), "TERM=xterm-256color", "COLUMNS=100", "LINES=30")
	var wall, cpu time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command("script", "-qfc", strconv.Quote(self)+" --dir "+strconv.Quote(dir), "/dev/null")
		cmd.Env = env
		out := &frameWatch{want: []byte("Ask about the code"), seen: make(chan struct{})}
		cmd.Stdout, cmd.Stderr = out, out
		stdin, err := cmd.StdinPipe() // kept open: script ends when its input does
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		select {
		case <-out.seen:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			b.Fatalf("no first frame within a minute; output:\n%q", out.String())
		}
		wall += time.Since(start)
		cpu += processCPU(childOf(cmd.Process.Pid))
		cmd.Process.Kill()
		stdin.Close()
		cmd.Wait()
	}
	b.ReportMetric(float64(wall.Microseconds())/1e3/float64(b.N), "ms-to-frame")
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms-to-frame")
}

// frameWatch collects a process's output and closes seen once want has
// arrived.
type frameWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want []byte
	seen chan struct{}
	done bool
}

func (f *frameWatch) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Write(p)
	if !f.done && bytes.Contains(f.buf.Bytes(), f.want) {
		f.done = true
		close(f.seen)
	}
	return len(p), nil
}

func (f *frameWatch) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// childOf is the first child of pid (script's: tern), or pid itself when
// Linux does not say.
func childOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return pid
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		if child, err := strconv.Atoi(f[0]); err == nil {
			return child
		}
	}
	return pid
}
