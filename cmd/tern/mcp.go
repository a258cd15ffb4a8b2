package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ternhq/tern/agent"
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
func newMCPManager(cfg Config, ws *tools.Workspace, reserved func() []string, gate func(context.Context, mcp.ServerConfig) error) (*mcp.Manager, error) {
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

// trustGate asks before starting a server that the repository's own
// .tern.toml names: opening a repository must not be enough to run the
// programs it chooses. Servers of the user's own config start freely. The
// approver asks in the TUI; headless, --yes allows it.
// mcpServerApproval prefixes the server's name in the approval asked
// before a project's MCP server starts.
const mcpServerApproval = "mcp_server_"

func trustGate(root string, ap agent.Approver) func(context.Context, mcp.ServerConfig) error {
	project := filepath.Join(root, ".tern.toml")
	return func(ctx context.Context, sc mcp.ServerConfig) error {
		if sc.Source != project {
			return nil
		}
		if ap == nil {
			return errors.New("it is configured by this repository's .tern.toml and nobody can approve starting it")
		}
		args, _ := json.Marshal(map[string]string{"server": sc.Name, "start": sc.Transport()})
		d, err := ap.Approve(ctx, agent.Approval{
			Tool: mcpServerApproval + sc.Name, Effect: tools.Executes, Args: args, Once: true,
			Preview: fmt.Sprintf("Start the MCP server %q that this repository's .tern.toml configures:\n  %s", sc.Name, sc.Transport()),
		})
		switch {
		case err != nil:
			return err
		case !d.Allow && d.Reason != "":
			return fmt.Errorf("this repository's .tern.toml names it, and starting it was not approved: %s", d.Reason)
		case !d.Allow:
			return errors.New("this repository's .tern.toml names it, and starting it was not approved")
		}
		return nil
	}
}
