package disclosure

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/tools"
)

// fakeCatalog ranks its tools by how many words of the query their names
// contain, as a stand-in for the MCP manager's BM25.
type fakeCatalog struct {
	tools    []tools.Tool
	searches []string
	err      error
}

func newFakeCatalog(names ...string) *fakeCatalog {
	c := &fakeCatalog{}
	for _, n := range names {
		c.tools = append(c.tools, &fakeTool{name: n, effect: tools.External})
	}
	return c
}

func (c *fakeCatalog) Search(_ context.Context, query string, k int) ([]tools.Tool, error) {
	c.searches = append(c.searches, query)
	var out []tools.Tool
	for _, t := range c.tools {
		for _, w := range strings.Fields(strings.ToLower(query)) {
			if strings.Contains(t.Spec().Name, w) {
				out = append(out, t)
				break
			}
		}
	}
	return out[:min(k, len(out))], c.err
}

func (c *fakeCatalog) Get(_ context.Context, name string) (tools.Tool, bool) {
	i := slices.IndexFunc(c.tools, func(t tools.Tool) bool { return t.Spec().Name == name })
	if i < 0 {
		return nil, false
	}
	return c.tools[i], true
}

func twelveTools() *fakeCatalog {
	return newFakeCatalog("github_create_issue", "github_list_issues", "github_get_pull", "jira_create_ticket",
		"jira_search", "slack_post_message", "slack_list_channels", "weather_forecast", "calc_add", "calc_mul",
		"docs_search", "docs_fetch_page")
}

func withCatalog(c Catalog, fetch tools.Tool) func(*Config) {
	return func(cfg *Config) {
		cfg.Catalog = c
		if fetch != nil {
			cfg.Tools[External] = []tools.Tool{fetch}
		}
	}
}

func TestRequestToolsQueryAddsOnlyMatchingCatalogTools(t *testing.T) {
	cat := twelveTools()
	fetch := &fakeTool{name: "fetch_url", effect: tools.External}
	s := newSet(t, Read, External, withCatalog(cat, fetch))
	rt, _ := s.Get("request_tools")
	if !strings.Contains(string(rt.Spec().Parameters), `"query"`) || !strings.Contains(rt.Spec().Description, "MCP tools matching a query") {
		t.Fatalf("request_tools does not offer the catalog: %s / %s", rt.Spec().Description, rt.Spec().Parameters)
	}
	before := visibleNames(s)
	res := rt.Run(t.Context(), tools.Input{Args: []byte(`{"tier": 3, "query": "create a github issue", "reason": "file the bug"}`)})
	if res.IsError {
		t.Fatalf("request_tools: %s", res.Output)
	}
	after := visibleNames(s)
	if !slices.Equal(after[:len(before)], before) {
		t.Fatalf("unlocking reordered the tools: %v then %v", before, after)
	}
	added := after[len(before):]
	// Tiers 1 and 2 come with tier 3; then fetch_url; then only the matches.
	if !slices.Contains(added, "fetch_url") || !slices.Contains(added, "github_create_issue") || slices.Contains(added, "weather_forecast") || slices.Contains(added, "calc_add") {
		t.Errorf("added %v; want fetch_url and the github/issue tools only", added)
	}
	if n := len(added) - len(s.upTo(External)) + len(before); n > catalogPick {
		t.Errorf("%d catalog tools added, want at most %d", n, catalogPick)
	}
	// A second query only appends.
	mid := visibleNames(s)
	res = rt.Run(t.Context(), tools.Input{Args: []byte(`{"tier": 3, "query": "weather"}`)})
	if res.IsError || !strings.Contains(res.Output, "weather_forecast") {
		t.Fatalf("second query: %s", res.Output)
	}
	end := visibleNames(s)
	if !slices.Equal(end[:len(mid)], mid) || end[len(end)-1] != "weather_forecast" {
		t.Errorf("second query did not append: %v then %v", mid, end)
	}
}

func TestCatalogToolsByNameAndWhenLocked(t *testing.T) {
	cat := twelveTools()
	s := newSet(t, Read, External, withCatalog(cat, nil))
	if _, ok := s.Get("jira_search"); ok {
		t.Error("a catalog tool never met was offered as known")
	}
	rt, _ := s.Get("request_tools")
	res := rt.Run(t.Context(), tools.Input{Args: []byte(`{"tool": "jira_search"}`)})
	if res.IsError || !slices.Contains(visibleNames(s), "jira_search") {
		t.Fatalf("unlock by name: %s; visible %v", res.Output, visibleNames(s))
	}
	for _, tier := range []Tier{Edit, Read} { // lower below what was unlocked
		if err := s.SetTier(t.Context(), tier, "test"); err != nil {
			t.Fatal(err)
		}
	}
	got, ok := s.Get("jira_search")
	if !ok || got.Spec().Description != "locked" {
		t.Errorf("after lowering, jira_search is %v, %v; want the locked stand-in", got, ok)
	}
}

func TestPromptForTheWebSearchesTheCatalog(t *testing.T) {
	cat := twelveTools()
	s := newSet(t, Read, External, withCatalog(cat, &fakeTool{name: "fetch_url", effect: tools.External}))
	s.OnPrompt(t.Context(), "look up online what the slack channels are")
	got := visibleNames(s)
	if !slices.Contains(got, "fetch_url") || !slices.Contains(got, "slack_list_channels") || slices.Contains(got, "github_create_issue") {
		t.Errorf("visible after a web prompt: %v", got)
	}
	if len(cat.searches) != 1 {
		t.Errorf("searches = %q", cat.searches)
	}
	capped := newSet(t, Read, Commands, withCatalog(twelveTools(), nil))
	capped.OnPrompt(t.Context(), "look up online what the slack channels are")
	if slices.ContainsFunc(capped.All(), func(t tools.Tool) bool { return strings.HasPrefix(t.Spec().Name, "slack") }) {
		t.Error("a session capped below tier 3 got catalog tools")
	}
}

func TestCatalogFailuresAreReported(t *testing.T) {
	cat := twelveTools()
	cat.err = errors.New("server docs: command not found: npx")
	s := newSet(t, Read, External, withCatalog(cat, nil))
	rt, _ := s.Get("request_tools")
	res := rt.Run(t.Context(), tools.Input{Args: []byte(`{"tier": 3, "query": "github issue"}`)})
	if res.IsError || !strings.Contains(res.Output, "github_create_issue") || !strings.Contains(res.Output, "command not found: npx") {
		t.Errorf("partial catalog result: %s", res.Output)
	}
}
