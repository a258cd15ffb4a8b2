package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ternhq/tern/agent"
)

// bar is a one-row primitive drawn from spans computed at draw time.
type bar struct {
	*tview.Box
	spans func(width int) []span
	style tcell.Style
}

func newBar(spans func(width int) []span, style tcell.Style) *bar {
	return &bar{Box: tview.NewBox().SetBackgroundColor(tcell.ColorDefault), spans: spans, style: style}
}

func (b *bar) Draw(screen tcell.Screen) {
	b.Box.DrawForSubclass(screen, b)
	x, y, w, h := b.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	for col := 0; col < w; col++ {
		screen.SetContent(x+col, y, ' ', nil, b.style)
	}
	drawSpans(screen, x, y, w, b.spans(w), b.style)
}

// newRule is a thin line across, as between the search hits and their
// preview.
func newRule(th theme) *bar {
	return newBar(func(w int) []span {
		return []span{{text: strings.Repeat("─", w), style: th.rule}}
	}, th.text)
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// segment is one field of the status bar; lower priority fields are
// dropped first when the terminal is narrow.
type segment struct {
	spans    []span
	priority int
}

// statusSpans draws the status bar: model, tier and its tools, tokens used
// of the window, RAG, repository, session, and what tern is doing.
func (a *App) statusSpans(width int) []span {
	th := a.th
	var segs []segment
	add := func(prio int, spans ...span) { segs = append(segs, segment{spans, prio}) }

	add(9, span{text: " tern ", style: th.barKey})
	switch a.conn {
	case connecting:
		add(9, span{text: "connecting…", style: th.busy})
	case offlineState:
		add(9, span{text: "offline", style: th.offline})
	default:
		model, escalated := a.modelStatus()
		st := th.barKey
		if escalated {
			st = th.busy
		}
		add(9, span{text: model, style: st})
	}
	if a.back != nil {
		tier := fmt.Sprintf("tier %d", a.tier)
		if a.back.Tiers == nil {
			tier = "tier 0"
		}
		add(7, span{text: tier, style: th.bar})
		if names := a.tierToolNames(); names != "" {
			add(1, span{text: names, style: th.barDim}) // the tool list (Tab) says it too
		}
		add(8, a.tokenSpans()...)
	}
	if a.planMode {
		add(9, span{text: "PLAN", style: th.busy})
	} else if a.goal {
		add(5, span{text: "goal pinned", style: th.bar})
	}
	rag := "RAG off"
	if a.rag {
		rag = "RAG on"
	}
	add(4, span{text: rag, style: th.bar})
	if a.back != nil {
		if a.back.Sandbox == "" {
			add(6, span{text: "unconfined", style: th.offline})
		} else {
			add(2, span{text: "sandbox: " + a.back.Sandbox, style: th.barDim})
		}
	}
	add(2, span{text: filepath.Base(a.cfg.Root), style: th.bar})
	if a.back != nil {
		add(3, span{text: a.back.SessionID, style: th.barDim}) // what --resume takes
	}
	if a.subagent != "" && a.job != nil {
		add(8, span{text: a.subagent, style: th.busy})
	}
	if a.job != nil {
		frame := spinner[int(a.now().Sub(a.job.start)/spinEvery)%len(spinner)]
		text := frame + " " + a.job.kind
		switch {
		case a.approval != nil:
			text = frame + " waiting for your answer"
		case a.activity != "":
			// What runs, not "generating": a command, a read, a subagent.
			text = frame + " running " + clip(a.activity, max(12, min(width/3, 40)))
			if d := a.now().Sub(a.activitySince); d >= time.Second {
				text += " " + clock(d)
			}
		case a.rate > 0:
			text += fmt.Sprintf(" %.0f tok/s", a.rate)
		}
		add(9, span{text: text, style: th.busy})
	}

	// Drop the lowest priority fields until the rest fit.
	for {
		w := 0
		for i, s := range segs {
			if i > 0 {
				w += 3
			}
			w += spansWidth(s.spans)
		}
		if w <= width || len(segs) <= 2 {
			break
		}
		low := 0
		for i, s := range segs {
			if s.priority < segs[low].priority {
				low = i
			}
		}
		segs = append(segs[:low], segs[low+1:]...)
	}
	var out []span
	for i, s := range segs {
		if i > 1 {
			out = append(out, span{text: " │ ", style: th.barDim})
		} else if i == 1 {
			out = append(out, span{text: " ", style: th.bar})
		}
		out = append(out, s.spans...)
	}
	return out
}

// tokenSpans shows the window's use: "~1.2k/8.2k ▮▮▯▯▯▯" coloured as it
// fills. "~" marks tern's own estimate before Ollama has reported a count.
func (a *App) tokenSpans() []span {
	th := a.th
	if a.window <= 0 {
		return []span{{text: "window ?", style: th.bar}}
	}
	frac := float64(a.used) / float64(a.window)
	st := th.good
	switch {
	case frac >= 0.85:
		st = th.full
	case frac >= 0.6:
		st = th.fair
	}
	mark := ""
	if !a.calibrated {
		mark = "~"
	}
	const cells = 6
	filled := min(cells, int(frac*cells+0.5))
	gauge := strings.Repeat("▮", filled) + strings.Repeat("▯", cells-filled)
	return []span{
		{text: fmt.Sprintf("%s%s/%s tok ", mark, kilo(a.used), kilo(a.window)), style: st},
		{text: gauge, style: st},
	}
}

// kilo writes a token count briefly: 950, 1.2k, 16k.
func kilo(n int) string { return agent.Kilo(n) }

// tierToolNames lists the tools the current tier added, for the status
// bar: "+edit_file write_file".
func (a *App) tierToolNames() string {
	var names []string
	for _, t := range a.tools {
		if t.Tier == a.tier && t.Active {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	if a.tier == 0 {
		return strings.Join(names, " ")
	}
	return "+" + strings.Join(names, " ")
}

// setUsage records a request's accounting: what the server counted fills
// the gauge, which is then calibrated.
func (a *App) setUsage(u agent.Usage) {
	if u.NumCtx > 0 {
		a.window = u.NumCtx
	}
	if u.PromptTokens > 0 {
		a.used, a.calibrated = u.PromptTokens+u.EvalTokens, true
	} else {
		a.used, a.calibrated = u.Estimate+u.EvalTokens, false
	}
}

// footerKeys are the keys the footer lists, most useful first.
var footerKeys = [][2]string{
	{"Enter", "send"}, {"Ctrl+C", "clear"}, {"Ctrl+T", "tier"}, {"Shift+Tab", "plan"}, {"Tab", "focus"},
	{"Ctrl+R", "RAG"}, {"Ctrl+S", "sessions"}, {"PgUp/PgDn", "scroll"}, {"?", "help"}, {"Ctrl+Q", "quit"},
}

func (a *App) footerSpans(width int) []span {
	th := a.th
	if a.hint != "" {
		return []span{{text: " " + clip(a.hint, width-1), style: th.barKey}}
	}
	keys := footerKeys
	if a.job != nil {
		keys = append([][2]string{{"Enter", "queue"}, {"Esc", "cancel"}}, footerKeys[2:]...)
	}
	if a.modal != "" {
		keys = [][2]string{{"Esc", "close"}, {"Ctrl+C", "cancel turn"}, {"Ctrl+Q", "quit"}}
	}
	out := []span{{text: " ", style: th.barDim}}
	used := 1
	for _, k := range keys {
		w := textWidth(k[0]) + 1 + textWidth(k[1]) + 2
		if used+w > width {
			break
		}
		out = append(out, span{text: k[0], style: th.barKey}, span{text: " " + k[1] + "  ", style: th.barDim})
		used += w
	}
	return out
}

// setHint shows text in the footer instead of the keys; "" restores them.
func (a *App) setHint(text string) { a.hint = text }

// elapsed formats a duration for messages.
func elapsed(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
