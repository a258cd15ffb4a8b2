package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/tools"
)

// mcp starts each enabled MCP server and reports its tools and what
// their schemas cost in tokens, or why it did not start and how to fix it.
// The servers are stopped again before it returns.
func (d *doctor) mcp(ctx context.Context, cfg config.Config) {
	r := d.r
	if len(cfg.MCP.Servers) == 0 {
		r.note("MCP", "no servers configured; tier 3 offers fetch_url only ([mcp.servers.NAME] in .tern.toml adds servers)")
		return
	}
	ws, err := tools.NewWorkspace(d.Root, cfg.AllowRead...)
	if err != nil {
		r.bad("MCP", "%v", err)
		return
	}
	m, err := d.MCP(cfg, ws)
	if err != nil {
		r.bad("MCP", "%v", err)
		return
	}
	defer m.Close()
	var count func(string) int
	if c, err := budget.NewCounter(); err == nil {
		count = c.Count
	}
	for _, st := range m.Status(ctx, count) {
		name := st.Config.Name
		switch {
		case !st.Config.On():
			r.note("MCP", "%s: disabled (%s)", name, st.Config.Transport())
		case !st.Running:
			r.bad("MCP", "%s: %v", name, st.Err)
			r.detail("%s", st.Config.Transport())
			if st.Fix != "" {
				r.detail("%s", st.Fix)
			}
		default:
			r.ok("MCP", "%s: %d tools, %d tokens of schemas (%s)", name, len(st.Tools), st.Tokens, st.Config.Transport())
			line := ""
			for i, e := range st.Tools {
				item := fmt.Sprintf("%s (%d)", e.Name, e.Tokens)
				if i > 0 {
					item = ", " + item
				}
				if len(line)+len(item) > 68 && line != "" {
					r.detail("%s,", line)
					item = strings.TrimPrefix(item, ", ")
					line = ""
				}
				line += item
			}
			if line != "" {
				r.detail("%s", line)
			}
		}
	}
}
