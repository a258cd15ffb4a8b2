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
	// Prefix, when set, is the start of the command line the user may
	// allow for the rest of the session instead of the whole tool
	// (tools.Review.Prefix): "go test". Never set with Once.
	Prefix string
}

// Decision is the answer to an Approval.
type Decision struct {
	Allow bool
	// Always allows the tool for the rest of the session.
	Always bool
	// Prefix allows the tool's calls that start with the Approval's Prefix
	// for the rest of the session.
	Prefix string
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
	// prefixes are the starts of calls allowed, by tool
	// (Decision.Prefix).
	prefixes map[string][]string
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

// AllowPrefix allows the calls of tool that start with prefix (a
// tools.Review.Prefix) for the rest of the session.
func (g *Grants) AllowPrefix(tool, prefix string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.prefixes == nil {
		g.prefixes = map[string][]string{}
	}
	g.prefixes[tool] = append(g.prefixes[tool], prefix)
}

// AllowedPrefix reports whether a call of tool whose review found prefix
// starts the way one the user allowed did.
func (g *Grants) AllowedPrefix(tool, prefix string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.prefixes[tool] {
		if tools.PrefixCovers(p, prefix) {
			return true
		}
	}
	return false
}

// Allowed reports whether tool was allowed for the rest of the session.
func (g *Grants) Allowed(tool string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tools[tool]
}
