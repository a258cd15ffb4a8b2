package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// newMCPManager returns the manager of the configured MCP servers and
// of those the editor passed (tern acp), or nil when there are none. It
// starts no server: they start when their tools are first wanted (tier
// 3), each after gate agrees. The notices say which of the editor's
// servers run and which do not, and why. The caller must Close it before
// exiting, so no server outlives tern.
// reserved lists the names MCP tools may not take; it is called only when
// servers are configured (building the whole tool set to learn them is a
// noticeable part of start-up) and may be nil.
func newMCPManager(cfg config.Config, editor []mcp.ServerConfig, ws *tools.Workspace, reserved func() []string, gate func(context.Context, mcp.ServerConfig) error) (*mcp.Manager, []string, error) {
	servers, err := cfg.MCP.List()
	if err != nil {
		return nil, nil, err
	}
	more, notices := beside(servers, editor)
	if len(more) > 0 {
		notices = append(notices, editorNotice(more, cfg.MaxTier))
	}
	servers = append(servers, more...)
	if len(servers) == 0 {
		return nil, notices, nil
	}
	var names []string
	if reserved != nil {
		names = reserved()
	}
	m, err := mcp.NewManager(mcp.Options{Servers: servers, Workspace: ws, Reserved: names, BeforeStart: gate})
	return m, notices, err
}

// beside returns the editor's servers that can run beside the config's,
// with a notice for each it leaves out: one whose name a config server
// has (the config's wins) or an earlier server of the editor's, or one
// that does not validate. The manager would refuse them all, and with
// them the session.
func beside(config, editor []mcp.ServerConfig) (keep []mcp.ServerConfig, notices []string) {
	ours := map[string]mcp.ServerConfig{}
	for _, c := range config {
		ours[c.Prefix()] = c
	}
	theirs := map[string]bool{}
	for _, e := range editor {
		p := e.Prefix()
		c, clash := ours[p]
		switch {
		case p == "":
			notices = append(notices, fmt.Sprintf("the editor's MCP server %q is not started: its name needs a letter or digit, to prefix the names of its tools", e.Name))
		case clash:
			where := "your config"
			if c.Source != "" {
				where = c.Source
			}
			off := ""
			if !c.On() {
				off = ", disabled there"
			}
			notices = append(notices, fmt.Sprintf("the editor's MCP server %q is not started: %s names a server %q ([mcp.servers.%s]%s), which comes first", e.Name, where, c.Name, c.Name, off))
		case theirs[p]:
			notices = append(notices, fmt.Sprintf("the editor's MCP server %q is not started: the editor passed another server of that name", e.Name))
		default:
			if err := e.Validate(); err != nil {
				notices = append(notices, fmt.Sprintf("%v; the server is not started", err))
				continue
			}
			theirs[p] = true
			keep = append(keep, e)
		}
	}
	return keep, notices
}

// editorNotice says which of the editor's servers the session uses and
// when they start; servers that never can, the session being capped
// below tier 3, are said to be unused.
func editorNotice(servers []mcp.ServerConfig, maxTier int) string {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	list := strings.Join(names, ", ")
	if disclosure.Tier(maxTier) < disclosure.External {
		return fmt.Sprintf("the editor's MCP servers (%s) are not used: their tools are tier 3 (external), above this session's limit (--max-tier %d)", list, maxTier)
	}
	return fmt.Sprintf("the editor's MCP servers (%s) start beside your config's when the model first wants external tools (tier 3)", list)
}

// NewMCP returns the manager of cfg's MCP servers, or nil when there are
// none, for tern doctor: the servers a repository's .tern.toml names in
// root start only when ap allows them (a nil ap refuses them). The caller
// must Close it.
func NewMCP(root string, cfg config.Config, ws *tools.Workspace, ap agent.Approver) (*mcp.Manager, error) {
	m, _, err := newMCPManager(cfg, nil, ws, nil, trustGate(root, ap))
	return m, err
}

// trustGate is mcp.ProjectGate asking the run's approver: in the TUI a
// dialog; headless, --yes allows it. The servers an editor passes start
// without a question, as the user's own config's do: they are the user's
// settings, not the repository's.
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
