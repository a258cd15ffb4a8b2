package agent

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// This file runs explore subagents: a fresh conversation with the
// read-only tools, its own small share of the window and a turn limit,
// whose final answer comes back to the caller as a short report. Only the
// report enters the calling agent's window, as the explore call's result;
// the subagent's own messages are kept in the session under the call's id.

// Defaults of explore subagents.
const (
	// DefaultExploreShare is the share of the window a subagent's prompts
	// may fill.
	DefaultExploreShare = 0.5
	// DefaultExploreTurns caps a subagent's model requests.
	DefaultExploreTurns = 8
	// minExploreWindow is the least window a subagent gets when the share
	// would leave it less (but never more than the served window): below
	// it the read-only tools leave too little room to read a file.
	minExploreWindow = 3072
)

// ExploreConfig sets up the explore subagents of a session. Model and
// NumCtx are the session's unless a subagent model is configured: a
// different window for the same model would reload it.
type ExploreConfig struct {
	SessionID string
	Model     string
	NumCtx    int
	// Share is the part of NumCtx a subagent's prompts may fill
	// (default DefaultExploreShare, at least minExploreWindow tokens).
	Share float64
	// MaxTurns caps a subagent's model requests (default DefaultExploreTurns).
	MaxTurns int
	// ReportTokens caps the report (default an eighth of the subagent's
	// window, 200 to 800 tokens).
	ReportTokens int
	// System, TextTools, ToolFormat and OneToolPerReply are as in Config,
	// for the subagent's model.
	System          string
	TextTools       bool
	ToolFormat      string
	OneToolPerReply bool
	Temperature     *float64
	KeepAlive       time.Duration
	Calibration     budget.Calibration
	// MainOnly names the read-only tools a subagent may not call
	// (tools.MainAgentOnly: explore itself, ask_user). request_tools is
	// never a subagent's either: it has nothing to unlock.
	MainOnly []string
	Logger   *slog.Logger
	Now      func() time.Time
}

// Explorer runs explore subagents; it satisfies tools.Explorer. One
// subagent runs at a time: parallel calls wait their turn, since they
// share one model.
type Explorer struct {
	cfg ExploreConfig
	// win is the session's window, of which a subagent gets a part.
	win     budget.Window
	model   chatModel
	tools   toolbox
	rec     recorder
	counter tokenCounter
	mu      sync.Mutex
}

// NewExplorer returns the explorer of one session. tb is the session's
// toolbox (nil until UseTools), of which a subagent gets the read-only
// tools the main agent does not keep to itself (cfg.MainOnly); rec is the session's recorder,
// which keeps the subagent's messages when it can (SubStore), and its tool
// calls and requests with the session's.
func NewExplorer(cfg ExploreConfig, model chatModel, tb toolbox, rec recorder, counter tokenCounter) *Explorer {
	if cfg.Share <= 0 || cfg.Share > 1 {
		cfg.Share = DefaultExploreShare
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultExploreTurns
	}
	win := budget.Window{NumCtx: cfg.NumCtx, Calibration: cfg.Calibration}
	return &Explorer{cfg: cfg, win: win, model: model, tools: tb, rec: rec, counter: counter}
}

// UseTools gives the explorer the session's toolbox, when it is made
// after the explorer (the explore tool needs the explorer). Call it
// before the first turn.
func (e *Explorer) UseTools(tb toolbox) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tools = tb
}

// part is the part of the session's window a subagent may fill.
func (e *Explorer) part() budget.Window {
	return e.win.Part(e.cfg.Share, minExploreWindow)
}

// window is the size of a subagent's part, in the model's tokens.
func (e *Explorer) window() int { return e.part().Size() }

// reportTokens is the report's cap.
func (e *Explorer) reportTokens() int {
	if e.cfg.ReportTokens > 0 {
		return e.cfg.ReportTokens
	}
	return min(max(e.window()/8, 200), 800)
}

// Explore runs one subagent on t and returns its report, cut to the cap.
// It returns an error only when ctx ends or the model cannot be reached;
// a subagent that runs out of turns is asked for its report without
// tools, and one that still gives none is reported by what it read.
func (e *Explorer) Explore(ctx context.Context, t tools.ExploreTask) (tools.ExploreReport, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	limit := e.reportTokens()
	if t.MaxBytes > 0 {
		limit = min(limit, max(t.MaxBytes/4, 64))
	}
	task := prompts.Explore{Task: t.Task, Files: t.Files, Words: limit * 3 / 4}
	prompt, err := prompts.RenderExplore(task)
	if err != nil {
		return tools.ExploreReport{}, err
	}
	win := e.part()
	window := win.Size()
	tb := &subTools{tb: e.tools, mainOnly: e.cfg.MainOnly}
	rec := &subRecorder{rec: e.rec, callID: t.CallID}
	rec.store, _ = e.rec.(SubStore)
	sub := New(Config{
		SessionID: e.cfg.SessionID, Model: e.cfg.Model, NumCtx: win.NumCtx, Window: win.Limit,
		Reserve:  min(max(window/6, limit*5/4, 256), window/3),
		MaxTurns: e.cfg.MaxTurns, System: e.cfg.System,
		TextTools: e.cfg.TextTools, ToolFormat: e.cfg.ToolFormat, OneToolPerReply: e.cfg.OneToolPerReply,
		Temperature: e.cfg.Temperature, KeepAlive: e.cfg.KeepAlive,
		Calibration: win.Calibration, Logger: e.cfg.Logger, Now: e.cfg.Now,
	}, e.model, tb, rec, nil, e.counter)

	var (
		rep    tools.ExploreReport
		answer string
		reason string
		looked []string
		steps  strings.Builder
	)
	say := func(text string) {
		if t.Progress != nil {
			t.Progress(tools.Progress{Text: text, Tokens: rep.Tokens})
		}
	}
	emit := func(ev Event) {
		switch ev := ev.(type) {
		case Message:
			if u := ev.Usage; u != nil {
				rep.Tokens += cmpOr(u.PromptTokens, u.Estimate) + u.EvalTokens
			}
			answer = ""
			if len(ev.Message.ToolCalls) == 0 {
				answer = ev.Message.Content
			} else if text := strings.TrimSpace(ev.Message.Content); text != "" {
				fmt.Fprintf(&steps, "%s\n", text)
			}
			say(fmt.Sprintf("request %d of %d", rep.Turns+1, e.cfg.MaxTurns))
		case ToolStart:
			rep.Calls++
			say(callLabel(ev.Name, ev.Args))
			fmt.Fprintf(&steps, "▸ %s\n", callLabel(ev.Name, ev.Args))
		case ToolEnd:
			if !ev.IsError && ev.Summary != "" {
				looked = append(looked, ev.Name+" "+ev.Summary)
			}
			mark := "✓"
			if ev.IsError {
				mark = "✗"
			}
			fmt.Fprintf(&steps, "  %s %s\n%s", mark, ev.Summary, indentHead(ev.Output, stepLines))
		case Done:
			rep.Turns += ev.Turns
			reason = ev.Reason
		}
	}
	say("starting")
	if err := sub.Run(ctx, prompt, emit); err != nil {
		return rep, err
	}
	if reason != DoneStop || strings.TrimSpace(answer) == "" {
		rep.Note = "asked for its report after " + map[string]string{
			DoneMaxTurns: "the turn limit", DoneStuck: "getting stuck"}[reason]
		if reason == DoneStop {
			rep.Note = "asked again for its report"
		}
		final, err := prompts.RenderExploreFinal(task)
		if err != nil {
			return rep, err
		}
		tb.closed = true // answer only: no more reading
		if err := sub.Run(ctx, final, emit); err != nil {
			return rep, err
		}
	}
	text := strings.TrimSpace(answer)
	if text == "" {
		rep.Note = "no report"
		text = "The helper gave no report. What it read:\n- " + strings.Join(looked, "\n- ")
		if len(looked) == 0 {
			text = "The helper gave no report and read nothing useful. Explore yourself with read_file and grep."
		}
	}
	rep.Text = cutReport(e.counter, text, limit)
	rep.Steps = steps.String()
	return rep, nil
}

// cutReport keeps whole lines of text within limit tokens, and says so
// when it cut.
func cutReport(c tokenCounter, text string, limit int) string {
	if c.Count(text) <= limit {
		return text
	}
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if c.Count(b.String()+l) > limit-16 {
			break
		}
		b.WriteString(l + "\n")
	}
	if b.Len() == 0 { // one long line
		b.WriteString(text[:min(len(text), limit*3)] + "…\n")
	}
	return b.String() + fmt.Sprintf("(report cut to about %d tokens)", limit)
}

// stepLines is how much of each output the steps show.
const stepLines = 12

// indentHead returns the first n lines of s, indented, and how many more
// there were.
func indentHead(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == n {
			fmt.Fprintf(&b, "    … %d more lines\n", len(lines)-n)
			break
		}
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// callLabel is a call on one short line, for progress.
func callLabel(name string, args []byte) string {
	s := strings.Join(strings.Fields(string(args)), " ")
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return name + " " + s
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// subTools is a subagent's toolbox: the session's visible read-only
// tools, without those kept to the main agent (mainOnly, request_tools),
// until closed; then none, so that its last request can only answer.
type subTools struct {
	tb       toolbox
	mainOnly []string
	closed   bool
}

func (s *subTools) All() []tools.Tool {
	if s.closed || s.tb == nil {
		return nil
	}
	var out []tools.Tool
	for _, t := range s.tb.All() {
		if name := t.Spec().Name; t.Effect() == tools.ReadOnly && name != unlocker && !slices.Contains(s.mainOnly, name) {
			out = append(out, t)
		}
	}
	return out
}

// Get finds only a tool All offers: a locked tool's stand-in, which asks
// for request_tools, is not the subagent's.
func (s *subTools) Get(name string) (tools.Tool, bool) {
	for _, t := range s.All() {
		if t.Spec().Name == name {
			return t, true
		}
	}
	return nil, false
}

// subRecorder records a subagent: its messages apart from the session's
// history (under the explore call's id), its tool calls and requests with
// the session's, marked as the subagent's.
type subRecorder struct {
	rec    recorder
	store  SubStore
	callID string
}

func (r *subRecorder) AppendMessage(ctx context.Context, sessionID string, m models.Message) error {
	if r.store == nil {
		return nil
	}
	return r.store.AppendSubMessage(ctx, sessionID, r.callID, m)
}

func (r *subRecorder) RecordToolCall(ctx context.Context, sessionID string, tc session.ToolCallRecord) error {
	tc.CallID = r.callID + "/" + tc.CallID
	return r.rec.RecordToolCall(ctx, sessionID, tc)
}

func (r *subRecorder) RecordTurn(ctx context.Context, sessionID string, m session.TurnMetrics) error {
	m.DoneReason = "explore " + m.DoneReason
	return r.rec.RecordTurn(ctx, sessionID, m)
}

// progressTo turns a call's progress into ToolProgress events.
func progressTo(send func(Event), c models.ToolCall) func(tools.Progress) {
	return func(p tools.Progress) {
		send(ToolProgress{ID: c.ID, Name: c.Name, Text: p.Text, Tokens: p.Tokens})
	}
}
