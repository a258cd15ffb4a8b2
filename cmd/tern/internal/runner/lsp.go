package runner

import (
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/tools/lsp"
)

// newLanguageServers returns the manager of the language servers cfg
// allows and path (a PATH list) has, or nil when none can run. It starts
// none: a server starts when the session first reads or edits a file of
// its language. notify tells the user of a server's troubles. The caller
// must Close it, so that no server outlives tern.
func newLanguageServers(root string, cfg config.Config, path string, notify func(string)) (*lsp.Manager, error) {
	servers, err := LanguageServers(cfg, path)
	if err != nil {
		return nil, err
	}
	runs := false
	for _, s := range servers {
		runs = runs || s.Runs()
	}
	if !runs {
		return nil, nil
	}
	return lsp.NewManager(lsp.Options{Root: root, Servers: servers, Wait: cfg.LSPWait.Duration, Notify: notify}), nil
}

// LanguageServers are the language servers cfg configures, each with the
// program found for it on path (a PATH list), if any: what a session
// would run, and what tern doctor lists.
func LanguageServers(cfg config.Config, path string) ([]lsp.Server, error) {
	servers, err := lsp.Resolve(cfg.LSP, cfg.LSPEnabled, lsp.LookPathIn(path))
	if err != nil {
		return nil, fmt.Errorf("language servers: %w", err)
	}
	return servers, nil
}
