package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
)

// replay sends a loaded session's conversation as updates, as it was
// shown live: the user's prompts, the answers and thoughts, and each call
// with its title, kind, files and what it returned, an edit as its diff,
// and an accepted plan as the plan update it was.
func (l *live) replay(ctx context.Context) {
	calls, err := l.s.Calls(ctx)
	if err != nil {
		l.a.deps.Log.Warn("replay: tool calls", "session", l.id, "err", err)
	}
	var answer string // the last answer: the plan, when the user accepts one
	for _, m := range l.s.History() {
		switch m.Role {
		case models.RoleUser:
			l.update(sdk.UpdateUserMessageText(cmp.Or(m.Shown, m.Content)))
			if strings.HasPrefix(m.Shown, agent.PlanAccepted) && strings.TrimSpace(answer) != "" {
				l.update(sdk.UpdatePlan(planEntries(answer)...)) // as acceptPlan sent it
			}
		case models.RoleAssistant:
			if m.Content != "" {
				answer = m.Content
			}
			if m.Thinking != "" {
				l.update(sdk.UpdateAgentThoughtText(m.Thinking))
			}
			if m.Content != "" {
				l.update(sdk.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				args := json.RawMessage(c.Arguments)
				l.update(sdk.StartToolCall(sdk.ToolCallId(c.ID), callTitle(c.Name, l.s.Describe(c.Name, args)),
					sdk.WithStartKind(toolKind(c.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
					sdk.WithStartLocations(l.locations(args)), sdk.WithStartRawInput(rawArgs(args))))
			}
		case models.RoleTool:
			// Every call that ran has its record; one without had its
			// turn end first (tern was killed while it ran), and the
			// model was told it did not finish.
			rec, ok := calls[m.ToolCallID]
			status := sdk.ToolCallStatusCompleted
			if ok && rec.IsError || calls != nil && !ok && m.ToolCallID != "" {
				status = sdk.ToolCallStatusFailed
			}
			// An edit's result holds its diff, shown as the edit was live.
			var diff string
			if toolKind(m.ToolName) == sdk.ToolKindEdit {
				diff = m.Content
			}
			opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status),
				sdk.WithUpdateContent(l.callContent(m.ToolCallID, m.Content, diff, status == sdk.ToolCallStatusFailed))}
			if ok && rec.Summary != "" && !rec.IsError {
				opts = append(opts, sdk.WithUpdateTitle(callTitle(m.ToolName, rec.Summary)))
			}
			if locs := l.diffLocations(diff); len(locs) > 0 {
				opts = append(opts, sdk.WithUpdateLocations(locs))
			}
			l.update(sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID), opts...))
		}
	}
}
