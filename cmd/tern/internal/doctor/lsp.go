package doctor

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/tools/lsp"
)

// probeTimeout bounds the start of each language server doctor tries.
const probeTimeout = 30 * time.Second

// lsp lists the language servers a session would run: each found on PATH
// is started, and stopped again, to show that it answers; those not found
// say how to get them.
func (d *doctor) lsp(ctx context.Context, cfg config.Config) {
	r := d.r
	if d.LanguageServers == nil {
		return
	}
	if !cfg.LSPEnabled {
		r.note("LSP", "off (lsp_enabled = false); edits are checked for syntax only")
		return
	}
	servers, err := d.LanguageServers(cfg)
	if err != nil {
		r.bad("LSP", "%v", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var missing []string
	for _, st := range lsp.Probe(ctx, d.Root, servers) {
		s := st.Server
		switch {
		case !s.Enabled:
			r.note("LSP", "%s: off (enabled = false)", s.Name)
		case len(s.Command) == 0:
			missing = append(missing, s.Missing[0])
		case st.Err != nil && s.Configured:
			r.bad("LSP", "%s: %s did not start: %v", s.Name, filepath.Base(s.Command[0]), st.Err)
			r.detail("fix it, or switch it off: [lsp.%s] enabled = false in your config", s.Name)
		case st.Err != nil:
			// Found on PATH, not asked for: rustup's rust-analyzer without
			// its component is common, and no reason to fail.
			r.note("LSP", "%s: %s did not start: %v", s.Name, filepath.Base(s.Command[0]), st.Err)
			r.detail("%s, or switch it off: [lsp.%s] enabled = false in your config", s.Install, s.Name)
		default:
			how := "found on PATH"
			if s.Configured {
				how = "configured"
			}
			r.ok("LSP", "%s: %s (%s: %s), answered in %s", s.Name, st.Info, how, strings.Join(s.Command, " "), st.Took.Round(10*time.Millisecond))
		}
	}
	switch {
	case len(missing) == 0:
	case len(missing) == len(servers):
		// One short line: the TUI shows doctor on one screen.
		r.note("LSP", "no language server on PATH; edits are checked for syntax only")
	default:
		r.note("LSP", "not on PATH: %s", strings.Join(missing, ", "))
	}
}
