package agent

import (
	"context"
	"encoding/json"
	"sync"

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

// Grants are the tools the user allowed for the rest of a session
// (Decision.Always). They belong to the session, not to one Agent: the
// TUI keeps them across the agents it opens for the same session, so that
// a reconnect to the model keeps what the user allowed. Safe for
// concurrent use; the zero value allows nothing.
type Grants struct {
	mu    sync.Mutex
	tools map[string]bool
}

// Allow allows tool for the rest of the session.
func (g *Grants) Allow(tool string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tools == nil {
		g.tools = map[string]bool{}
	}
	g.tools[tool] = true
}

// Allowed reports whether tool was allowed for the rest of the session.
func (g *Grants) Allowed(tool string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tools[tool]
}
