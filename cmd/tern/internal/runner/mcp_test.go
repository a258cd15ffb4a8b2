package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/tools/mcp"
)

// approverFunc answers approvals with a func.
type approverFunc func(agent.Approval) agent.Decision

func (f approverFunc) Approve(_ context.Context, ap agent.Approval) (agent.Decision, error) {
	return f(ap), nil
}

// TestTrustGate: a server the repository's .tern.toml names starts only
// when the run's approver allows it, asked as a server start; headless
// without --yes refuses it and says why; nobody to ask refuses it; the
// user's own servers start without a question.
func TestTrustGate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := mcp.ServerConfig{Name: "fix", Command: "fixture", Source: config.ProjectPath(root)}
	user := mcp.ServerConfig{Name: "mine", Command: "mine", Source: filepath.Join(t.TempDir(), "config.toml")}

	err := trustGate(root, headless.Approver{})(t.Context(), project)
	want := "this repository's .tern.toml names it, and starting it was not approved: tern ask asks no questions, so it starts a server the repository configures only when run with --yes"
	if err == nil || err.Error() != want {
		t.Errorf("headless without --yes: %v\nwant %s", err, want)
	}
	if err := trustGate(root, headless.Approver{Yes: true})(t.Context(), project); err != nil {
		t.Errorf("headless with --yes: %v", err)
	}
	if err := trustGate(root, nil)(t.Context(), project); err == nil || !strings.Contains(err.Error(), "nobody can approve starting it") {
		t.Errorf("no approver: %v", err)
	}

	var asked []agent.Approval
	ask := approverFunc(func(ap agent.Approval) agent.Decision {
		asked = append(asked, ap)
		return agent.Decision{Allow: true}
	})
	if err := trustGate(root, ask)(t.Context(), user); err != nil || len(asked) != 0 {
		t.Errorf("the user's server: %v, %d questions", err, len(asked))
	}
	if err := trustGate(root, ask)(t.Context(), project); err != nil || len(asked) != 1 {
		t.Fatalf("the project's server, allowed: %v, %d questions", err, len(asked))
	}
	if ap := asked[0]; ap.Tool != mcp.ServerStartTool+"fix" || !ap.Once || !strings.Contains(ap.Preview, `Start the MCP server "fix" that this repository's .tern.toml configures`) {
		t.Errorf("asked %+v", ap)
	}
}

// TestNoMCPServers: with no server configured there is no manager to
// start or close.
func TestNoMCPServers(t *testing.T) {
	t.Parallel()
	m, err := NewMCP(t.TempDir(), config.Default(), nil, headless.Approver{})
	if m != nil || err != nil {
		t.Errorf("NewMCP = %v, %v; want nil, nil", m, err)
	}
}
