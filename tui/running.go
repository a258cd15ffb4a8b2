package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/ternhq/tern/agent"
)

// This file shows the calls that are running: each call's line counts the
// seconds it has run and shows, under it, the last lines of what it
// reported (a command's output, explore's latest step); the status bar
// says which call runs instead of "generating".

// tailShown bounds the reported lines shown under a running call, and
// tailColumns their width.
const (
	tailShown   = 3
	tailColumns = 160
)

// runningCall is a call from its start to its end, as the presenter shows
// it.
type runningCall struct {
	header string
	start  time.Time
	// text and tokens are its latest progress: output lines, or a
	// subagent's step and what it has spent.
	text   string
	tokens int
	// secs is the elapsed time its line shows, in whole seconds.
	secs int
}

// startCall shows a call that starts.
func (p *presenter) startCall(id, header string) []func() {
	r := &runningCall{header: header, start: p.now()}
	p.running[id] = r
	return append(p.drawCall(id, r), p.activity())
}

// progress shows what a running call reported.
func (p *presenter) progress(e agent.ToolProgress) []func() {
	r := p.running[e.ID]
	if r == nil {
		r = &runningCall{header: e.Name, start: p.now()}
		p.running[e.ID] = r
	}
	r.text, r.tokens = e.Text, e.Tokens
	ops := p.drawCall(e.ID, r)
	if e.Tokens > 0 {
		sub := e.Name + " running · " + kilo(e.Tokens) + " tok"
		ui := p.ui
		ops = append(ops, func() { ui.subagent = sub })
	}
	return ops
}

// endCall forgets a call that ended; its line is drawn by the caller.
func (p *presenter) endCall(id string) []func() {
	r := p.running[id]
	delete(p.running, id)
	ops := []func(){p.activity()}
	if r != nil && r.tokens > 0 {
		ui := p.ui
		ops = append(ops, func() { ui.subagent = "" })
	}
	return ops
}

// tick redraws the running calls whose elapsed second changed; the pump
// flushes every spinEvery while tern works.
func (p *presenter) tick() []func() {
	var ops []func()
	now := p.now()
	for id, r := range p.running {
		if secs := int(now.Sub(r.start) / time.Second); secs >= 1 && secs != r.secs {
			ops = append(ops, p.drawCall(id, r)...)
		}
	}
	return ops
}

// drawCall draws a running call's line and the tail of what it reported.
func (p *presenter) drawCall(id string, r *runningCall) []func() {
	th := p.th
	r.secs = int(p.now().Sub(r.start) / time.Second)
	meta := " …"
	if r.secs >= 1 {
		meta = " · " + clock(time.Duration(r.secs)*time.Second)
	}
	if r.tokens > 0 {
		meta += " · " + kilo(r.tokens) + " tok"
	}
	lines := []line{{spans: []span{{text: "▸ ", style: th.tool}, {text: r.header, style: th.tool}, {text: meta, style: th.dim}}, hang: 2}}
	tail := strings.Split(cleanText(strings.TrimRight(r.text, "\n")), "\n")
	for _, t := range tail[max(0, len(tail)-tailShown):] {
		if strings.TrimSpace(t) != "" {
			lines = append(lines, line{spans: []span{{text: "  │ ", style: th.dim}, {text: clip(t, tailColumns), style: th.toolOutput}}, hang: 4})
		}
	}
	block, ui := p.blockID(id), p.ui
	return []func(){func() { ui.conv.set(block, kindTool, lines, nil) }}
}

// activity tells the status bar which call runs: the one started last.
func (p *presenter) activity() func() {
	var what string
	var since time.Time
	for _, r := range p.running {
		if r.start.After(since) || what == "" {
			what, since = r.header, r.start
		}
	}
	ui := p.ui
	return func() { ui.activity, ui.activitySince = what, since }
}

// clock writes an elapsed time briefly: 7s, 1m05s, 1h02m.
func clock(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}
