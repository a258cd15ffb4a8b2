package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
)

// Display caps: the full output stays with the model and in the session.
const (
	diffShown      = 40  // diff lines shown before expanding
	outputShown    = 400 // output lines shown when expanded
	thinkingTail   = 8   // thinking lines shown while it streams
	summaryColumns = 100
)

// presenter turns agent events into prepared view updates. It runs on the
// pump goroutine: Markdown, highlighting and wrapping of tool output
// happen there, and what it hands to the UI goroutine are closures that
// only swap prepared lines into place.
type presenter struct {
	ui *App
	th theme
	md *markdown
	// now is the clock, for thinking time and token rates.
	now func() time.Time

	seq int
	// The answer and thinking being streamed, with their block ids.
	answer, thinking           strings.Builder
	answerID, thinkingID       string
	answerDirty, thinkingDirty bool
	// stream renders the answer as it grows, the open block only.
	stream     mdStream
	thinkStart time.Time
	// running holds each call until it ends (see running.go), blocks its
	// block's id: the presenter's own, so that no id a server sends twice
	// can overwrite an earlier call's line.
	running map[string]*runningCall
	blocks  map[string]string
	// deltas and streamStart give the generation rate.
	deltas      int
	streamStart time.Time
}

func newPresenter(ui *App, th theme, md *markdown, now func() time.Time) *presenter {
	return &presenter{ui: ui, th: th, md: md, now: now, running: make(map[string]*runningCall), blocks: make(map[string]string),
		stream: mdStream{md: md}}
}

func (p *presenter) id(kind string) string {
	p.seq++
	return kind + ":" + strconv.Itoa(p.seq)
}

// blockID is the block of the running call callID; a fresh one for a
// call that never started.
func (p *presenter) blockID(callID string) string {
	if id, ok := p.blocks[callID]; ok {
		return id
	}
	id := p.id("tool")
	p.blocks[callID] = id
	return id
}

// event prepares the updates for one event; n is how many deltas were
// merged into it.
func (p *presenter) event(ev agent.Event, n int) []func() {
	ui := p.ui
	switch e := ev.(type) {
	case agent.Token:
		ops := p.closeThinking()
		p.countDeltas(n)
		if p.answerID == "" {
			p.answerID = p.id("answer")
			id := p.answerID
			ops = append(ops, func() { ui.conv.set(id, kindAssistant, nil, nil) })
		}
		p.answer.WriteString(e.Text)
		p.answerDirty = true
		return ops
	case agent.Thinking:
		p.countDeltas(n)
		if p.thinkingID == "" {
			p.thinkingID, p.thinkStart = p.id("thinking"), p.now()
		}
		p.thinking.WriteString(e.Text)
		p.thinkingDirty = true
		return nil
	case agent.ToolStart:
		ops := append(p.closeThinking(), p.endAnswer("", false)...)
		header := toolHeader(e.Name, e.Subject, e.Args)
		switch e.Repair {
		case "":
		case agent.RepairMention:
			header += " (attached: @ in the prompt)"
		default:
			header += " (recovered from " + e.Repair + " text)"
		}
		p.blocks[e.ID] = p.id("tool")
		return append(ops, p.startCall(e.ID, header)...)
	case agent.ToolProgress:
		return p.progress(e)
	case agent.ToolEnd:
		var header string
		if r := p.running[e.ID]; r != nil {
			header = r.header
		}
		short, long := toolLines(p.th, header, e)
		id := p.blockID(e.ID)
		delete(p.blocks, e.ID)
		return append([]func(){func() { ui.conv.set(id, kindTool, short, long) }}, p.endCall(e.ID)...)
	case agent.Message:
		ops := append(p.closeThinking(), p.endAnswer(e.Message.Content, true)...)
		if u := e.Usage; u != nil {
			ops = append(ops, func() { ui.setUsage(*u) })
		}
		return ops
	case agent.Notice:
		lines := noticeLines(p.th, e)
		return []func(){func() { ui.conv.add(&block{kind: kindNotice, short: lines}) }}
	case agent.PlanReady:
		return []func(){func() { ui.planReady(e.Plan) }}
	case agent.Escalated:
		return []func(){func() { ui.escalatedTo(e) }}
	case agent.Done:
		ops := append(p.closeThinking(), p.endAnswer("", false)...)
		p.deltas, p.streamStart = 0, time.Time{}
		return append(ops, func() { ui.turnDone(e) })
	}
	return nil
}

// flush renders what streamed since the last flush.
func (p *presenter) flush() []func() {
	var ops []func()
	ui := p.ui
	if p.answerDirty && p.answerID != "" {
		id := p.answerID
		add, tail := p.stream.update(p.answer.String())
		ops = append(ops, func() { ui.conv.stream(id, kindAssistant, add, tail) })
		p.answerDirty = false
	}
	if p.thinkingDirty && p.thinkingID != "" {
		all := textLines(lastLines(p.thinking.String(), thinkingTail+1), p.th.thinking)
		shown := all[max(0, len(all)-thinkingTail):]
		head := styledLine("thinking…", p.th.thinking)
		id := p.thinkingID
		short := append([]line{head}, shown...)
		ops = append(ops, func() { ui.conv.set(id, kindThinking, short, nil) })
		p.thinkingDirty = false
	}
	ops = append(ops, p.tick()...)
	if p.deltas > 0 && !p.streamStart.IsZero() {
		if secs := p.now().Sub(p.streamStart).Seconds(); secs > 0.2 {
			rate := float64(p.deltas) / secs
			ops = append(ops, func() { ui.rate = rate })
		}
	}
	return ops
}

func (p *presenter) countDeltas(n int) {
	if p.streamStart.IsZero() {
		p.streamStart = p.now()
	}
	p.deltas += max(n, 1)
}

// closeThinking folds the thinking block into one line that opens.
func (p *presenter) closeThinking() []func() {
	if p.thinkingID == "" {
		return nil
	}
	text := p.thinking.String()
	took := elapsed(p.now().Sub(p.thinkStart))
	head := line{spans: []span{{text: "▸ ", style: p.th.thinking},
		{text: fmt.Sprintf("thought for %s (%d words)", took, len(strings.Fields(text))), style: p.th.thinking}}}
	long := append([]line{head}, textLines(text, p.th.thinking)...)
	id, ui := p.thinkingID, p.ui
	p.thinkingID, p.thinkingDirty = "", false
	p.thinking.Reset()
	return []func(){func() { ui.conv.set(id, kindThinking, []line{head}, long) }}
}

// endAnswer renders the answer in full. With kept set, final is the
// message as the agent kept it and replaces what streamed: text that
// turned out to be a tool call is not shown.
func (p *presenter) endAnswer(final string, kept bool) []func() {
	if p.answerID == "" && strings.TrimSpace(final) == "" {
		return nil
	}
	id, ui := p.answerID, p.ui
	if id == "" {
		id = p.id("answer")
	}
	text := p.answer.String()
	if kept {
		text = final
	}
	p.answerID, p.answerDirty = "", false
	p.answer.Reset()
	p.stream.reset()
	if strings.TrimSpace(text) == "" {
		return []func(){func() { ui.conv.remove(id) }}
	}
	lines := p.md.render(text)
	return []func(){func() { ui.conv.set(id, kindAssistant, lines, nil) }}
}

// lastLines returns the end of s that holds its last n lines, trailing
// newlines aside, so that the thinking shown while it streams costs the
// same at any length.
func lastLines(s string, n int) string {
	end := len(strings.TrimRight(s, "\n"))
	i := end
	for range n {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}

func noticeLines(th theme, e agent.Notice) []line {
	st, mark := th.notice, "· "
	if e.Level == agent.Warn {
		st, mark = th.warn, "! "
	}
	lines := textLines(e.Text, st)
	if len(lines) == 0 {
		return nil
	}
	lines[0].spans = append([]span{{text: mark, style: st}}, lines[0].spans...)
	for i := range lines {
		lines[i].hang = 2
	}
	return lines
}

// toolLines renders a finished call: a header line with its outcome, the
// diff of a write (shown), and the output (on opening).
func toolLines(th theme, header string, e agent.ToolEnd) (short, long []line) {
	if header == "" {
		header = e.Name
	}
	mark, st := "✓ ", th.toolOK
	var outcome string
	switch {
	case e.IsError:
		mark, st = "✗ ", th.toolErr
		outcome = firstLine(e.Output)
	case strings.HasPrefix(e.Summary, e.Name+" "):
		// The tool's own one-liner says it best: "grep "x" 3 matches".
		header = oneLine(e.Summary, summaryColumns)
	case e.Summary != "":
		header = e.Name + " " + oneLine(e.Summary, summaryColumns)
	}
	spans := []span{{text: mark, style: st}, {text: header, style: th.tool}}
	if outcome != "" {
		spans = append(spans, span{text: " — " + oneLine(outcome, summaryColumns), style: th.dim})
	}
	if p := e.Problems(); p != "" {
		spans = append(spans, span{text: " · " + p, style: th.warn})
	}
	if e.Duration >= 100*time.Millisecond {
		spans = append(spans, span{text: " · " + e.Duration.Round(100*time.Millisecond).String(), style: th.dim})
	}
	head := line{spans: spans, hang: 2}
	short = []line{head}
	var body []line
	if e.Diff != "" {
		diff := diffLines(th, e.Diff)
		shown := diff[:min(len(diff), diffShown)]
		short = append(short, indent(shown, 2)...)
		if len(diff) > diffShown {
			short = append(short, styledLine(fmt.Sprintf("  … %d more diff lines (Tab, then Enter to open)", len(diff)-diffShown), th.dim))
		}
		body = diff
	} else if out := strings.TrimSpace(e.Output); out != "" {
		body = textLines(out, th.toolOutput)
	}
	if e.Detail != "" {
		body = append(body, line{}, styledLine("steps of the subagent (its messages stay out of the model's window):", th.dim))
		body = append(body, textLines(strings.TrimRight(e.Detail, "\n"), th.dim)...)
	}
	if len(body) == 0 {
		return short, nil
	}
	long = append([]line{head}, indent(body[:min(len(body), outputShown)], 2)...)
	if len(body) > outputShown {
		long = append(long, styledLine(fmt.Sprintf("  … %d more lines (the model saw them, or their start and end)", len(body)-outputShown), th.dim))
	}
	return short, long
}

// diffLines colours a unified diff.
func diffLines(th theme, diff string) []line {
	lines := textLines(diff, th.text)
	for i, l := range lines {
		t := l.plain()
		switch {
		case strings.HasPrefix(t, "+++"), strings.HasPrefix(t, "---"):
			lines[i] = styledLine(t, th.bold)
		case strings.HasPrefix(t, "+"):
			lines[i] = line{spans: []span{{text: t, style: th.diffAdd}}, lead: []span{{text: "+", style: th.diffAdd}}}
		case strings.HasPrefix(t, "-"):
			lines[i] = line{spans: []span{{text: t, style: th.diffDel}}, lead: []span{{text: "-", style: th.diffDel}}}
		default:
			lines[i].hang = 1 // a context line's text starts after its space
		case strings.HasPrefix(t, "@@"):
			lines[i] = styledLine(t, th.diffHunk)
		}
	}
	return lines
}

func indent(lines []line, n int) []line {
	pad := strings.Repeat(" ", n)
	out := make([]line, len(lines))
	for i, l := range lines {
		out[i] = line{spans: append([]span{{text: pad}}, l.spans...), hang: l.hang + n}
		if l.lead != nil {
			out[i].lead = append([]span{{text: pad}}, l.lead...)
		}
	}
	return out
}

// userShown is how many lines of a prompt the conversation shows; the rest
// (of a large paste) is summed up.
const userShown = 40

// userLines renders a prompt as typed.
func userLines(th theme, prompt string) []line {
	lines := textLines(prompt, th.user)
	if len(lines) == 0 {
		return nil
	}
	if n := len(lines); n > userShown {
		lines = append(lines[:userShown], styledLine(fmt.Sprintf("… %d more lines (the prompt was %s)",
			n-userShown, promptSize{bytes: len(prompt), lines: n}), th.dim))
	}
	for i := range lines {
		mark := "  "
		if i == 0 {
			mark = "› "
		}
		lines[i].spans = append([]span{{text: mark, style: th.userMark}}, lines[i].spans...)
		lines[i].hang = 2
	}
	return lines
}

// toolHeader is a call on one line: the tool and what the call is about,
// as the tool says it (subject), as in "read_file agent/loop.go:1-80" or
// `grep "parseConfig" in cmd`; else the tool and its arguments, as
// name=value, a list or object by its size (never raw JSON).
func toolHeader(name, subject string, args json.RawMessage) string {
	if subject != "" {
		return name + " " + oneLine(subject, 80)
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return name
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		var v string
		switch x := m[k].(type) {
		case string:
			v = strconv.Quote(oneLine(x, 40))
		case []any:
			v = fmt.Sprintf("[%d]", len(x))
		case map[string]any:
			v = "{…}"
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		parts[i] = k + "=" + v
	}
	return name + " " + oneLine(strings.Join(parts, " "), 60)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// historyBlocks renders a resumed conversation: prompts, answers and
// calls (closed), as the user saw them: calls with the one-line summary
// and outcome their tool gave (from calls, by call id), else with the
// header their subject makes (describe, which may be nil).
func historyBlocks(th theme, md *markdown, history []models.Message, calls map[string]CallSummary, describe func(string, json.RawMessage) string) []*block {
	var out []*block
	headers := make(map[string]string)
	for _, m := range history {
		switch m.Role {
		case models.RoleUser:
			out = append(out, &block{kind: kindUser, short: userLines(th, cmp.Or(m.Shown, m.Content))})
		case models.RoleAssistant:
			if strings.TrimSpace(m.Content) != "" {
				out = append(out, &block{kind: kindAssistant, short: md.render(m.Content)})
			}
			for _, c := range m.ToolCalls {
				var subject string
				if describe != nil {
					subject = describe(c.Name, c.Arguments)
				}
				headers[c.ID] = toolHeader(c.Name, subject, c.Arguments)
			}
		case models.RoleTool:
			c := calls[m.ToolCallID]
			short, long := toolLines(th, headers[m.ToolCallID], agent.ToolEnd{
				ID: m.ToolCallID, Name: m.ToolName, Output: m.Content, Summary: c.Summary, IsError: c.IsError, Duration: c.Duration})
			out = append(out, &block{kind: kindTool, short: short, long: long})
		}
	}
	return out
}
