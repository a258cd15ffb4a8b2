package agent

import (
	"context"
	"encoding/json"

	"github.com/ternhq/tern/tools"
)

// Approval asks whether a call that changes something may run.
type Approval struct {
	// ID is the call's, as its ToolStart event gave it.
	ID     string
	Tool   string
	Effect tools.Effect
	Args   json.RawMessage
	// Preview shows what the call would do (a diff, a command line), when
	// the tool can tell beforehand.
	Preview string
	// Destructive marks calls that always ask, whatever was allowed before.
	Destructive bool
	// Why says, for a destructive call, what makes it so ("deletes files
	// recursively").
	Why string
	// Once means the answer covers this call only: Decision.Always is
	// ignored, so the approver need not offer it.
	Once bool
}

// Decision is the answer to an Approval.
type Decision struct {
	Allow bool
	// Always allows the tool for the rest of the session.
	Always bool
	// Reason, for a denial, is passed to the model.
	Reason string
}

// Approver answers approvals: the TUI with a dialog, headless runs with a
// policy, tests with a function.
type Approver interface {
	Approve(ctx context.Context, a Approval) (Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, a Approval) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, a Approval) (Decision, error) { return f(ctx, a) }
