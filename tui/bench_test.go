package tui

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
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

// streamReply is a long reply as a model streams it: sections of prose,
// a list, a code block and a table, cut into word-sized tokens.
func streamReply(tokens int) []string {
	section := func(i int) string {
		return fmt.Sprintf("## Step %d\n\nThe **loop** in `agent/agent.go` sends request %d, then it streams the reply and recovers the tool calls that the model wrote as text.\n\n"+
			"- streams the reply;\n- recovers tool calls;\n- runs them, %d at most.\n\n"+
			"```go\nfor turn := %d; ; turn++ {\n\treply, usage, err := a.step(ctx, send)\n\tif err != nil {\n\t\treturn err\n\t}\n}\n```\n\n"+
			"| field | meaning |\n|---|---|\n| turn | the request number |\n| usage | tokens spent |\n\n", i, i, i, i)
	}
	var out []string
	for i := 0; len(out) < tokens; i++ {
		s := section(i)
		for len(s) > 0 && len(out) < tokens {
			n := strings.IndexAny(s[1:], " \n`*|") + 1
			if n <= 0 {
				n = len(s)
			}
			out = append(out, s[:n])
			s = s[n:]
		}
	}
	return out
}

// BenchmarkStream20k streams a 20,000-token reply into the TUI as the pump
// does (8 tokens a flush, each flush drawn), after a short warm-up reply,
// and reports the cost per token over the first and the last thousand
// tokens, in CPU time (which other processes stretch less than wall
// time): it must not grow with the reply (last/first near 1).
func BenchmarkStream20k(b *testing.B) {
	const total, perFlush, window = 20000, 8, 1000
	toks := streamReply(total)
	var first, last time.Duration
	for b.Loop() {
		sim := tcell.NewSimulationScreen("UTF-8")
		a := New(Config{Root: "/work/repo", Screen: sim}, Deps{Connect: waitForever})
		sim.SetSize(120, 40)
		a.conv.SetRect(0, 0, 120, 40)
		var ops []func()
		// A short reply first, so that one-time costs (the highlighter's
		// lexers, the first layout) do not count as the first tokens'.
		for _, tok := range toks[:500] {
			ops = append(ops, a.pres.event(agent.Token{Text: tok}, 1)...)
		}
		for _, op := range append(ops, a.pres.event(agent.Done{}, 0)...) {
			op()
		}
		a.conv.Draw(sim)
		ops = ops[:0]
		start := cpuTime()
		for i, tok := range toks {
			if i == window {
				first += cpuTime() - start
			}
			if i == total-window {
				start = cpuTime()
			}
			ops = append(ops, a.pres.event(agent.Token{Text: tok}, 1)...)
			if (i+1)%perFlush == 0 {
				for _, op := range append(ops, a.pres.flush()...) {
					op()
				}
				ops = ops[:0]
				a.conv.Draw(sim)
			}
		}
		last += cpuTime() - start
		for _, op := range a.pres.event(agent.Done{}, 0) {
			op()
		}
	}
	n := float64(b.N * window)
	b.ReportMetric(float64(first.Microseconds())/n, "µs/token-first1k")
	b.ReportMetric(float64(last.Microseconds())/n, "µs/token-last1k")
	b.ReportMetric(float64(last)/float64(first), "last/first")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
