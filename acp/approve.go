package acp

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/agent"
)

// Permission options of a call.
const (
	optAllowOnce   = "allow-once"
	optAllowAlways = "allow-always"
	optAllowPrefix = "allow-prefix"
	optReject      = "reject"
)

// Approve asks the user, through the editor, whether a call may run:
// allow once, allow the commands that start as this one does ("go
// test") or the tool for the rest of the session, or reject. A
// destructive command, and any call the agent asks about one at a time,
// is never offered "always". tern's own policy has decided first: what
// it denies never gets here, and what the configuration allows does not
// ask. A client that never answers keeps the turn waiting until it is
// cancelled or the connection ends.
func (l *live) Approve(ctx context.Context, ap agent.Approval) (agent.Decision, error) {
	title := "Allow " + ap.Tool + "?"
	if ap.Destructive {
		title = "Allow " + ap.Tool + "? It " + ap.Why
	}
	options := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if ap.Prefix != "" && !ap.Once {
		options = append(options, sdk.PermissionOption{OptionId: optAllowPrefix, Name: "Allow commands starting with `" + ap.Prefix + "` for this session",
			Kind: sdk.PermissionOptionKindAllowAlways})
	}
	if !ap.Once {
		options = append(options, sdk.PermissionOption{OptionId: optAllowAlways, Name: "Allow " + ap.Tool + " for this session",
			Kind: sdk.PermissionOptionKindAllowAlways})
	}
	options = append(options, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	call := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(ap.ID), Title: &title, Kind: sdk.Ptr(toolKind(ap.Tool)),
		Status: sdk.Ptr(sdk.ToolCallStatusPending), Content: l.previewContent(ap), RawInput: rawArgs(ap.Args)}
	if locs := l.locations(ap.Args); len(locs) > 0 {
		call.Locations = locs
	}
	ask := func() (sdk.RequestPermissionResponse, error) {
		return l.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(l.id), ToolCall: call, Options: options})
	}
	if len(ap.Args) == 0 { // a question of tern's own (/undo's), no model's call
		ask = func() (sdk.RequestPermissionResponse, error) { return l.askAlone(ctx, call, options) }
	}
	resp, err := ask()
	if err != nil {
		if ctx.Err() != nil {
			return agent.Decision{}, ctx.Err()
		}
		var re *sdk.RequestError
		if errors.As(err, &re) {
			return agent.Decision{}, errors.New(requestErrorText(re))
		}
		return agent.Decision{}, err
	}
	var d agent.Decision
	switch {
	case resp.Outcome.Selected == nil:
		return agent.Decision{Reason: "the user cancelled the question"}, nil
	case resp.Outcome.Selected.OptionId == optAllowOnce:
		d = agent.Decision{Allow: true}
	case resp.Outcome.Selected.OptionId == optAllowPrefix && ap.Prefix != "" && !ap.Once:
		d = agent.Decision{Allow: true, Prefix: ap.Prefix}
	case resp.Outcome.Selected.OptionId == optAllowAlways && !ap.Once:
		d = agent.Decision{Allow: true, Always: true}
	default:
		return agent.Decision{}, nil
	}
	if len(ap.Args) > 0 {
		// The request showed the call pending; it runs now. (A question
		// of tern's own, as /undo's, has no arguments and no call.)
		l.update(sdk.UpdateToolCall(sdk.ToolCallId(ap.ID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	}
	return d, nil
}

// askAlone asks a question that is no model's call (ask_user's
// questions, a plan to accept, /undo's): the protocol asks about a tool
// call, so the question is a call of its own, announced pending before
// it is asked and completed once answered (failed when it was not), and
// no client is left with a request about a call it never heard of or a
// call that never ends.
func (l *live) askAlone(ctx context.Context, call sdk.ToolCallUpdate, options []sdk.PermissionOption) (sdk.RequestPermissionResponse, error) {
	start := []sdk.ToolCallStartOpt{sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(call.Content)}
	if call.Kind != nil {
		start = append(start, sdk.WithStartKind(*call.Kind))
	}
	title := ""
	if call.Title != nil {
		title = *call.Title
	}
	l.update(sdk.StartToolCall(call.ToolCallId, title, start...))
	resp, err := l.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(l.id), ToolCall: call, Options: options})
	status := sdk.ToolCallStatusCompleted
	if err != nil || resp.Outcome.Selected == nil {
		status = sdk.ToolCallStatusFailed
	}
	l.update(sdk.UpdateToolCall(call.ToolCallId, sdk.WithUpdateStatus(status)))
	return resp, err
}

// previewContent shows what the call would do: an edit's diff, a
// command line, and why a destructive one is asked about every time.
func (l *live) previewContent(ap agent.Approval) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	if ap.Destructive && ap.Why != "" {
		out = append(out, textContent("⚠ This call "+ap.Why+"; tern asks about it every time.")...)
	}
	if strings.TrimSpace(ap.Preview) == "" {
		return out
	}
	if d := diffContent(l.dir, ap.Preview); len(d) > 0 {
		return append(out, d...)
	}
	return append(out, textContent(fenced(clipText(ap.Preview, maxShownOutput)))...)
}

// requestErrorText is the words of a client's error, without its JSON.
func requestErrorText(re *sdk.RequestError) string {
	if m, ok := re.Data.(map[string]any); ok {
		for _, k := range []string{"error", "message", "details"} {
			if s, ok := m[k].(string); ok && s != "" {
				return re.Message + ": " + s
			}
		}
	}
	return re.Message
}
