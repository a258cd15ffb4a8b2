package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/agent"
)

// turnView turns one turn's agent events into session updates, and
// remembers what decides how the turn stopped.
type turnView struct {
	l    *live
	seq  int64
	done agent.Done
	// cut is set when the last reply stopped at the output limit with no
	// call in it.
	cut bool
	// plan is the plan the turn ended with, awaiting the user's answer.
	plan string
}

var turnSeq atomic.Int64

func newTurnView(l *live) *turnView { return &turnView{l: l, seq: turnSeq.Add(1)} }

func (t *turnView) id() string { return strconv.FormatInt(t.seq, 10) }

// emit shows e. The agent calls it one event at a time.
func (t *turnView) emit(e agent.Event) {
	l := t.l
	switch e := e.(type) {
	case agent.Token:
		l.update(sdk.UpdateAgentMessageText(e.Text))
	case agent.Thinking:
		l.update(sdk.UpdateAgentThoughtText(e.Text))
	case agent.ToolStart:
		l.startCall(e)
	case agent.ToolProgress:
		l.update(sdk.UpdateToolCall(sdk.ToolCallId(e.ID), sdk.WithUpdateContent(textContent(e.Text))))
	case agent.ToolEnd:
		l.endCall(e)
		l.reportMode() // request_tools may have unlocked a tier
	case agent.Message:
		t.cut = e.Usage != nil && e.Usage.DoneReason == "length" && len(e.Message.ToolCalls) == 0
	case agent.Notice:
		l.notice(e)
		l.reportMode() // the prompt's words may have unlocked a tier
	case agent.PlanReady:
		t.plan = e.Plan
	case agent.Done:
		t.done = e
	}
}

// close forgets the turn's terminals.
func (t *turnView) close() {
	t.l.mu.Lock()
	t.l.terminals = nil
	t.l.mu.Unlock()
}

// stopReason says honestly why the turn stopped: the model answered
// (end_turn, or max_tokens when its answer was cut), or tern stopped it
// at --max-turns. A model that kept looping was stopped with a warning,
// its work kept: that too is the end of the turn, not a refusal (which
// would tell the client the prompt was dropped).
func (t *turnView) stopReason() sdk.StopReason {
	switch t.done.Reason {
	case agent.DoneMaxTurns:
		return sdk.StopReasonMaxTurnRequests
	case agent.DoneCanceled:
		return sdk.StopReasonCancelled
	}
	if t.cut {
		return sdk.StopReasonMaxTokens
	}
	return sdk.StopReasonEndTurn
}

// toolKinds says what kind of work each of tern's tools does, so that the
// editor shows the right icon and knows what may change. Tools not named
// (MCP servers' tools) are "other".
var toolKinds = map[string]sdk.ToolKind{
	"read_file": sdk.ToolKindRead, "list_dir": sdk.ToolKindRead, "git_status": sdk.ToolKindRead, "git_diff": sdk.ToolKindRead,
	"grep": sdk.ToolKindSearch, "glob": sdk.ToolKindSearch, "search_code": sdk.ToolKindSearch, "explore": sdk.ToolKindSearch,
	"edit_file": sdk.ToolKindEdit, "write_file": sdk.ToolKindEdit,
	"run_command": sdk.ToolKindExecute, "git_commit": sdk.ToolKindExecute,
	"fetch_url":     sdk.ToolKindFetch,
	"request_tools": sdk.ToolKindSwitchMode,
	"ask_user":      sdk.ToolKindThink,
}

func toolKind(name string) sdk.ToolKind {
	if k, ok := toolKinds[name]; ok {
		return k
	}
	return sdk.ToolKindOther
}

// callTitle is what a call is about: "read_file main.go:1-40". A
// subject that already names the tool ("list_dir . (5 entries)", as some
// tools sum themselves up) stands alone, as the TUI shows it.
func callTitle(name, subject string) string {
	switch {
	case subject == "":
		return name
	case strings.HasPrefix(subject, name+" "):
		return subject
	}
	return name + " " + subject
}

// startCall announces a call about to run.
func (l *live) startCall(e agent.ToolStart) {
	l.update(sdk.StartToolCall(sdk.ToolCallId(e.ID), callTitle(e.Name, e.Subject),
		sdk.WithStartKind(toolKind(e.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
		sdk.WithStartLocations(l.locations(e.Args)), sdk.WithStartRawInput(rawArgs(e.Args))))
}

// endCall reports how a call ended: an edit as its diff, a command run
// in the editor's terminal as that terminal, the rest as text.
func (l *live) endCall(e agent.ToolEnd) {
	status := sdk.ToolCallStatusCompleted
	if e.IsError {
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateContent(l.callContent(e.ID, e.Output, e.Diff, e.IsError))}
	if e.Summary != "" && !e.IsError {
		opts = append(opts, sdk.WithUpdateTitle(callTitle(e.Name, e.Summary)))
	}
	if locs := l.diffLocations(e.Diff); len(locs) > 0 {
		opts = append(opts, sdk.WithUpdateLocations(locs))
	}
	l.update(sdk.UpdateToolCall(sdk.ToolCallId(e.ID), opts...))
}

// callContent is what a finished call shows.
func (l *live) callContent(id, output, diff string, failed bool) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	l.mu.Lock()
	term, inTerminal := l.terminals[id]
	l.mu.Unlock()
	if inTerminal {
		out = append(out, sdk.ToolTerminalRef(term))
	}
	if diff != "" && !failed {
		if d := diffContent(l.dir, diff); len(d) > 0 {
			return append(out, d...)
		}
	}
	if inTerminal && !failed {
		return out // the terminal shows the output
	}
	return append(out, textContent(fenced(clipText(output, maxShownOutput)))...)
}

// maxShownOutput bounds the text of a call shown in the editor; the model
// got its own, capped by the budget.
const maxShownOutput = 8 << 10

func textContent(text string) []sdk.ToolCallContent {
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
}

// fenced puts text in a Markdown code block whose fence it cannot close.
func fenced(text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}

// clipText cuts text to about n bytes, at a line end where it can.
func clipText(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := text[:n]
	if i := strings.LastIndexByte(cut, '\n'); i > n/2 {
		cut = cut[:i+1]
	}
	return cut + fmt.Sprintf("… (%d more bytes)", len(text)-len(cut))
}

// rawArgs is the call's arguments as the client gets them: the JSON
// object, or nothing when they are not one.
func rawArgs(args json.RawMessage) any {
	if !json.Valid(args) {
		return nil
	}
	return args
}

// locations are the files a call touches, absolute, for the editor to
// follow: its "path" argument, at its "offset" line when it has one.
func (l *live) locations(args json.RawMessage) []sdk.ToolCallLocation {
	var a struct {
		Path   string          `json:"path"`
		Offset json.RawMessage `json:"offset"`
	}
	if json.Unmarshal(args, &a) != nil || strings.TrimSpace(a.Path) == "" {
		return nil
	}
	loc := sdk.ToolCallLocation{Path: l.abs(a.Path)}
	if n, err := strconv.Atoi(strings.Trim(string(a.Offset), `"`)); err == nil && n > 0 {
		loc.Line = &n
	}
	return []sdk.ToolCallLocation{loc}
}

// diffLocations are where a diff's hunks start in the new file.
func (l *live) diffLocations(diff string) []sdk.ToolCallLocation {
	path, hunks := parseUnified(diff)
	if path == "" {
		return nil
	}
	var locs []sdk.ToolCallLocation
	for _, h := range hunks {
		line := max(h.newStart, 1)
		locs = append(locs, sdk.ToolCallLocation{Path: l.abs(path), Line: &line})
	}
	return locs
}

// abs makes a path the model gave absolute, from the workspace.
func (l *live) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.dir, filepath.FromSlash(p))
}
