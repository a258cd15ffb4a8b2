package tui

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// waitForever is a connect that never succeeds, as when Ollama is slow.
func waitForever(ctx context.Context, _ ConnectRequest) (*Backend, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// BenchmarkFirstFrame measures the time from building the TUI to its first
// drawn frame (target: under 300 ms). The model connects in the
// background, so a slow or absent Ollama does not delay it.
func BenchmarkFirstFrame(b *testing.B) {
	for b.Loop() {
		sim := tcell.NewSimulationScreen("UTF-8")
		a := New(Config{Root: "/work/repo", Screen: sim}, Deps{Connect: waitForever})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx) }()
		<-a.FirstDraw()
		b.StopTimer()
		cancel()
		<-done
		b.StartTimer()
	}
}

// answer is a typical reply: prose, a list and a code block.
var answer = strings.Repeat("The **loop** in `agent/agent.go` sends the request, then:\n\n"+
	"1. streams the reply;\n2. recovers tool calls;\n3. runs them.\n\n"+
	"```go\nfor turn := 1; ; turn++ {\n\treply, usage, err := a.step(ctx, send)\n}\n```\n\n", 8)

// BenchmarkStreamFlush measures one pump flush while an answer streams at
// the end of a long conversation: render the answer's Markdown, swap it
// in, lay out and draw the screen. Only the changed block is re-wrapped.
func BenchmarkStreamFlush(b *testing.B) {
	th := newTheme(false)
	md := newMarkdown(th)
	c := newConvo(th, 5000)
	for i := range 400 {
		c.add(&block{kind: kindAssistant, short: md.render(fmt.Sprintf("Answer %d with `code` and **bold** text that wraps around the screen more than once, surely.", i))})
	}
	sim := tcell.NewSimulationScreen("UTF-8")
	sim.Init()
	sim.SetSize(120, 40)
	c.SetRect(0, 0, 120, 40)
	c.Draw(sim)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		lines := md.render(answer[:len(answer)*(i%10+1)/10])
		c.set("live", kindAssistant, lines, nil)
		c.Draw(sim)
	}
}

// BenchmarkIdleHeap reports the live heap of an idle TUI holding a full
// scrollback (5000 lines), as "heap-MiB" (target for the process: under
// 150 MB; the smoke test in cmd/tern logs the resident size).
func BenchmarkIdleHeap(b *testing.B) {
	for b.Loop() {
		sim := tcell.NewSimulationScreen("UTF-8")
		a := New(Config{Root: "/work/repo", Screen: sim}, Deps{Connect: waitForever})
		sim.SetSize(120, 40)
		for i := range 1000 {
			a.conv.add(&block{kind: kindAssistant, short: a.md.render(fmt.Sprintf("Answer %d:\n\n- one `x`\n- two **y**\n- three\n", i))})
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx) }()
		<-a.FirstDraw()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
		cancel()
		<-done
	}
}
