package tools

import (
	"context"
	"encoding/json"

	"github.com/ternhq/tern/tools/shell"
)

// Reviewer is a tool that can check a call before it runs: whether it can
// run at all, what it would do, and how careful the user should be with it.
// The agent asks for a review before it asks the user for approval, and
// shows the preview in that question.
type Reviewer interface {
	Review(ctx context.Context, args json.RawMessage) Review
}

// The tools that change something and can tell beforehand how. The agent
// finds their reviews by type assertion; these lines keep them from being
// lost to a renamed method, which would drop the preview and the checks
// from every approval.
var (
	_ Reviewer = (*writeFile)(nil)
	_ Reviewer = (*editFile)(nil)
	_ Reviewer = (*runCommand)(nil)
	_ Reviewer = (*gitCommit)(nil)
)

// PrefixCovers reports whether prefix, a Review.Prefix the user allowed,
// covers a call whose Review.Prefix is next: the same words, or more
// ("make" covers "make check").
func PrefixCovers(prefix, next string) bool { return shell.Covers(prefix, next) }

// Review is what a call would do, found out without doing it.
type Review struct {
	// Preview shows the change or the action: a diff, a command line.
	Preview string
	// Destructive, when not empty, says why the call could destroy work that
	// cannot be recovered ("deletes files recursively"). Such calls ask every
	// time, and headless runs refuse them unless told otherwise.
	Destructive string
	// Once means the user must approve each call of this kind; an earlier
	// "allow for the session" does not cover it.
	Once bool
	// Allowed means the user's configuration allows this call without
	// asking (a command on the allow list).
	Allowed bool
	// Prefix, when set, is the start of a command line the user may allow
	// for the rest of the session instead of the whole tool ("go test"; see
	// shell.Verdict.Prefix): never for one that is destructive.
	Prefix string
	// Refused, when set, is the call's result: it cannot run as asked (the
	// edit does not apply, the command is denied), so there is nothing to
	// approve.
	Refused *Result
}
