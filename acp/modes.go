package acp

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// A session's modes are its tool tiers and plan mode, so that an
// editor's mode picker does what Ctrl+T and Shift+Tab do in the TUI. An
// unlock during a turn (the prompt's words, the model's request_tools)
// and an accepted plan are reported as mode updates.

// modeInfo names and explains a mode; the tiers are in order.
var modeInfo = []struct{ id, name, about string }{
	{"read", "Read", "tier 0: read, list and search the code; unlocks more when the work needs it"},
	{"edit", "Edit", "tier 1: also edit and write files, each change asked for"},
	{"commands", "Commands", "tier 2: also run commands and use git, each asked for"},
	{"external", "External", "tier 3: also fetch web pages and use the configured MCP servers"},
	{"plan", "Plan", "read only, then propose a plan to accept or send back"},
}

// planMode is the id of plan mode; the others are tiers.
const planMode = "plan"

// modes is the session's mode state: the tiers it may reach and plan mode.
func (l *live) modes() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(l.currentMode())}
	for i, m := range modeInfo {
		if m.id != planMode && i > l.s.MaxTier() {
			continue
		}
		about := m.about
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: &about})
	}
	return st
}

// currentMode is plan in plan mode, else the tier's mode.
func (l *live) currentMode() string {
	if l.s.PlanMode() {
		return planMode
	}
	return modeInfo[min(max(l.s.Tier(), 0), len(modeInfo)-2)].id
}

// setMode switches to the mode id. The session changes between turns, so
// the switch waits for a turn in flight to end; then the client is told
// the mode, the last it hears of before the answer.
func (l *live) setMode(ctx context.Context, id string) error {
	tier := slices.IndexFunc(modeInfo, func(m struct{ id, name, about string }) bool { return m.id == id })
	switch {
	case tier < 0:
		return fmt.Errorf("no mode %q; the modes are %s", id, modeIDs())
	case id != planMode && tier > l.s.MaxTier():
		return fmt.Errorf("mode %q is above this session's highest tier, %d (--max-tier)", id, l.s.MaxTier())
	}
	l.turn.Lock()
	defer l.turn.Unlock()
	if id == planMode {
		l.s.SetPlanMode(true)
	} else {
		l.s.SetPlanMode(false)
		if err := l.s.SetTier(ctx, tier); err != nil {
			return err
		}
	}
	// The client hears of the mode last, before the answer: a turn that
	// ran while this waited, or whose report crossed the request, may
	// have told it of another (a tier the model unlocked).
	l.mu.Lock()
	l.mode = l.currentMode()
	now := l.mode
	l.mu.Unlock()
	l.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(now)}})
	return nil
}

func modeIDs() string {
	ids := make([]string, len(modeInfo))
	for i, m := range modeInfo {
		ids[i] = m.id
	}
	return strings.Join(ids, ", ")
}

// reportMode tells the client when the mode is no longer the one it was
// last told of: a tier unlocked by the prompt or by request_tools, or a
// plan accepted.
func (l *live) reportMode() {
	now := l.currentMode()
	l.mu.Lock()
	changed := now != l.mode
	l.mode = now
	l.mu.Unlock()
	if changed {
		l.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(now)}})
	}
}

// Permission options of a plan.
const (
	optAcceptPlan = "accept-plan"
	optKeepPlan   = "keep-planning"
)

// offerPlan asks the user to accept the plan the turn ended with. An
// accepted plan is sent as a plan update and carried out in the same
// prompt; otherwise the next prompt comments on it.
func (l *live) offerPlan(ctx context.Context, t *turnView) error {
	title := "Accept the plan and carry it out?"
	resp, err := l.askAlone(ctx,
		sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId("plan-" + t.id()), Title: &title,
			Kind: sdk.Ptr(sdk.ToolKindSwitchMode), Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(t.plan))}},
		[]sdk.PermissionOption{
			{OptionId: optAcceptPlan, Name: "Accept the plan", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optKeepPlan, Name: "Keep planning (your next prompt comments on it)", Kind: sdk.PermissionOptionKindRejectOnce},
		})
	if err != nil {
		return err
	}
	if resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != optAcceptPlan {
		return nil
	}
	t.plan = ""
	return l.acceptPlan(ctx, t, "")
}

// planStep matches a step of a plan: a numbered or bulleted line.
var planStep = regexp.MustCompile(`^\s*(?:\d+[.)]|[-*•])\s+(.+)$`)

// planEntries are the steps of a plan written in Markdown: its numbered
// or bulleted lines, else the whole plan as one step.
func planEntries(plan string) []sdk.PlanEntry {
	var entries []sdk.PlanEntry
	for line := range strings.SplitSeq(plan, "\n") {
		if m := planStep.FindStringSubmatch(line); m != nil {
			entries = append(entries, sdk.PlanEntry{Content: strings.TrimSpace(m[1]),
				Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
		}
	}
	if len(entries) == 0 {
		entries = append(entries, sdk.PlanEntry{Content: strings.TrimSpace(plan),
			Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
	}
	return entries
}
