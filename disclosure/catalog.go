package disclosure

import (
	"context"
	"fmt"
	"strings"

	"github.com/ternhq/tern/tools"
)

// Catalog is a searchable collection of external tools, such as those of
// the configured MCP servers: too many to offer whole, so tier 3 offers the
// few that match the task. *mcp.Manager satisfies it. Its first use may
// start servers, which can take seconds.
type Catalog interface {
	// Search returns up to k tools matching query, best first. A partial
	// result comes with an error naming what is unavailable.
	Search(ctx context.Context, query string, k int) ([]tools.Tool, error)
	// Get returns the tool named name.
	Get(ctx context.Context, name string) (tools.Tool, bool)
}

// catalogPick is how many catalog tools one unlock adds: enough to choose
// from, few enough that a small model still picks well.
const catalogPick = 4

// fromCatalog appends to the visible tools the catalog tools that best match
// query, after those already visible, and returns their names. Tools
// already visible are skipped, so repeated searches only ever append.
func (s *Set) fromCatalog(ctx context.Context, query string) (added []string, problem string) {
	if s.catalog == nil || s.max < External || strings.TrimSpace(query) == "" {
		return nil, ""
	}
	found, err := s.catalog.Search(ctx, query, catalogPick)
	if err != nil {
		problem = err.Error()
	}
	s.mu.Lock()
	for _, t := range found {
		name := t.Spec().Name
		s.external[name] = t
		if !s.isVisible(name) {
			s.visible = append(s.visible, t)
			added = append(added, name)
		}
	}
	var st State
	if len(added) > 0 {
		s.notices = append(s.notices, fmt.Sprintf("external tools unlocked: %s — matching %q", strings.Join(added, ", "), oneLine(query, 60)))
		st = s.stateLocked()
	}
	s.mu.Unlock()
	if len(added) > 0 {
		s.persist(ctx, st)
	}
	return added, problem
}

// fromCatalogByName makes the catalog tool named name visible.
func (s *Set) fromCatalogByName(ctx context.Context, name string) (tools.Tool, bool) {
	if s.catalog == nil || s.max < External {
		return nil, false
	}
	t, ok := s.catalog.Get(ctx, name)
	if !ok {
		return nil, false
	}
	s.mu.Lock()
	s.external[name] = t
	s.mu.Unlock()
	return t, true
}
