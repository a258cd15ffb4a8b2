package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// Question is one of ask_user's multiple-choice questions.
type Question struct {
	Text    string
	Options []string
}

// ErrNotAnswered is Ask's error when the user skipped a question.
var ErrNotAnswered = errors.New("the user did not answer")

// optSkip is the option that skips a question.
const optSkip = "skip"

// Ask puts the model's multiple-choice questions to the user, one
// permission prompt each, its options the answers: ACP has no other
// question, and an editor shows a permission's options as buttons.
func (l *live) Ask(ctx context.Context, qs []Question) ([]string, error) {
	answers := make([]string, len(qs))
	for i, q := range qs {
		title := q.Text
		options := make([]sdk.PermissionOption, 0, len(q.Options)+1)
		for j, o := range q.Options {
			options = append(options, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(fmt.Sprint(j)), Name: o,
				Kind: sdk.PermissionOptionKindAllowOnce})
		}
		options = append(options, sdk.PermissionOption{OptionId: optSkip, Name: "Skip (let the model decide)", Kind: sdk.PermissionOptionKindRejectOnce})
		resp, err := l.askAlone(ctx, sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(fmt.Sprintf("question-%d-%d", newTurnView(l).seq, i)),
			Title: &title, Kind: sdk.Ptr(sdk.ToolKindThink)}, options)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, clientError(err)
		}
		sel := resp.Outcome.Selected
		if sel == nil || sel.OptionId == optSkip {
			return nil, ErrNotAnswered
		}
		var n int
		if _, err := fmt.Sscan(string(sel.OptionId), &n); err != nil || n < 0 || n >= len(q.Options) {
			return nil, fmt.Errorf("the editor answered with an unknown option %q", sel.OptionId)
		}
		answers[i] = q.Options[n]
	}
	return answers, nil
}
