package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// mcpConfig is the [mcp] section: the MCP servers of tier 3, one
// [mcp.servers.NAME] table each. A table in .tern.toml replaces the user
// file's table of the same name as a whole, so `enabled = false` alone
// switches a user's server off for one project.
type mcpConfig struct {
	Servers map[string]mcpServerConfig `toml:"servers"`
	// sources maps a server's name to the file that configured it last.
	sources map[string]string
}

type mcpServerConfig struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	Enabled *bool             `toml:"enabled"`
	Timeout duration          `toml:"timeout"`
}

// noteSources records path as the source of the servers its file defines
// or changes, whether as a table ([mcp.servers.x]), by dotted keys
// (mcp.servers.x.command = …) or inline.
func (c *mcpConfig) noteSources(md toml.MetaData, path string) {
	for _, key := range md.Keys() {
		if len(key) >= 3 && key[0] == "mcp" && key[1] == "servers" {
			if c.sources == nil {
				c.sources = map[string]string{}
			}
			c.sources[key[2]] = path
		}
	}
}

// servers returns the configured servers in name order, checked: an entry
// that could not work is an error naming its file and table.
func (c mcpConfig) servers() ([]mcp.ServerConfig, error) {
	var out []mcp.ServerConfig
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		s := c.Servers[name]
		sc := mcp.ServerConfig{
			Name:    name,
			Command: s.Command,
			Args:    s.Args,
			Env:     s.Env,
			URL:     s.URL,
			Headers: s.Headers,
			Enabled: s.Enabled,
			Timeout: s.Timeout.Duration,
			Source:  c.sources[name],
		}
		if err := sc.Validate(); err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// newMCPManager returns the manager of the configured MCP servers, or nil
// when there are none. It starts no server: they start when their tools
// are first wanted (tier 3), each after gate agrees. reserved are the
// names of tern's own tools. The caller must Close it before exiting, so
// no server outlives tern.
// reserved lists the names MCP tools may not take; it is called only when
// servers are configured (building the whole tool set to learn them is a
// noticeable part of start-up) and may be nil.
func newMCPManager(cfg Config, ws *tools.Workspace, reserved func() []string, gate func(context.Context, mcp.ServerConfig) error) (*mcp.Manager, error) {
	servers, err := cfg.MCP.servers()
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
