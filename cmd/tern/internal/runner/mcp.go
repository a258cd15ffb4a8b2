package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// newMCPManager returns the manager of the configured MCP servers, or nil
// when there are none. It starts no server: they start when their tools
// are first wanted (tier 3), each after gate agrees. reserved are the
// names of tern's own tools. The caller must Close it before exiting, so
// no server outlives tern.
// reserved lists the names MCP tools may not take; it is called only when
// servers are configured (building the whole tool set to learn them is a
// noticeable part of start-up) and may be nil.
func newMCPManager(cfg config.Config, ws *tools.Workspace, reserved func() []string, gate func(context.Context, mcp.ServerConfig) error) (*mcp.Manager, error) {
	servers, err := cfg.MCP.List()
	if err != nil || len(servers) == 0 {
		return nil, err
	}
	var names []string
	if reserved != nil {
		names = reserved()
	}
	return mcp.NewManager(mcp.Options{Servers: servers, Workspace: ws, Reserved: names, BeforeStart: gate})
}

// NewMCP returns the manager of cfg's MCP servers, or nil when there are
// none, for tern doctor: the servers a repository's .tern.toml names in
// root start only when ap allows them (a nil ap refuses them). The caller
// must Close it.
func NewMCP(root string, cfg config.Config, ws *tools.Workspace, ap agent.Approver) (*mcp.Manager, error) {
	return newMCPManager(cfg, ws, nil, trustGate(root, ap))
}

// trustGate is mcp.ProjectGate asking the run's approver: in the TUI a
// dialog; headless, --yes allows it.
func trustGate(root string, ap agent.Approver) func(context.Context, mcp.ServerConfig) error {
	if ap == nil {
		return mcp.ProjectGate(config.ProjectPath(root), nil)
	}
	return mcp.ProjectGate(config.ProjectPath(root), func(ctx context.Context, sc mcp.ServerConfig) (bool, string, error) {
		args, _ := json.Marshal(map[string]string{"server": sc.Name, "start": sc.Transport()})
		d, err := ap.Approve(ctx, agent.Approval{
			Tool: mcp.ServerStartTool + sc.Name, Effect: tools.Executes, Args: args, Once: true,
			Preview: fmt.Sprintf("Start the MCP server %q that this repository's .tern.toml configures:\n  %s", sc.Name, sc.Transport()),
		})
		return d.Allow, d.Reason, err
	})
}
