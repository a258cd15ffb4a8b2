package disclosure

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/lsp"
)

type anySearcher struct{}

func (anySearcher) SearchCode(context.Context, string, int, string, int) (string, string, error) {
	return "", "", nil
}

// anyServers are language servers that run, answering nothing.
type anyServers struct{}

func (anyServers) Handles(string) bool { return true }
func (anyServers) Running() bool       { return true }
func (anyServers) Opened(string)       {}
func (anyServers) Changed(context.Context, string, string, string, bool) (lsp.Report, error) {
	return lsp.Report{}, nil
}
func (anyServers) Definition(context.Context, string, lsp.Position) ([]lsp.Location, error) {
	return nil, nil
}
func (anyServers) References(context.Context, string, lsp.Position) ([]lsp.Location, error) {
	return nil, nil
}

// TestDocsTierTable keeps docs/tools.md's table of tiers true: each row names
// the tools of its tier, in order, and what their schemas cost (tier 0
// without and with search_code, then with definition and references too),
// counted as the agent counts its prefix.
func TestDocsTierTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := budget.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	build := func(search tools.CodeSearcher, servers tools.LanguageServers) *Set {
		b, err := tools.Builtins(tools.Deps{Workspace: ws, Search: search, Servers: servers})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Config{Tools: b, Max: External})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	plain, indexed, full := build(nil, nil), build(anySearcher{}, nil), build(anySearcher{}, anyServers{})
	without, with, all := TierTokens(plain.Costs(c)), TierTokens(indexed.Costs(c)), TierTokens(full.Costs(c))

	rows := regexp.MustCompile("(?m)^\\| ([0-3]) [a-z]+ \\| (.*) \\| (.*) \\|$").FindAllStringSubmatch(string(data), -1)
	if len(rows) != NumTiers {
		t.Fatalf("docs/tools.md has %d rows in its tier table, want %d", len(rows), NumTiers)
	}
	names := regexp.MustCompile("`([a-z_]+)`")
	number := regexp.MustCompile(`\d[\d,]*`)
	for _, row := range rows {
		tier, _ := strconv.Atoi(row[1])
		var listed []string
		for _, m := range names.FindAllStringSubmatch(row[2], -1) {
			listed = append(listed, m[1])
		}
		want := namesOf(full.Tools(Tier(tier)))
		if !slices.Equal(listed, want) {
			t.Errorf("docs/tools.md lists tier %d as %v, want %v", tier, listed, want)
		}
		nums := number.FindAllString(row[3], -1)
		wantNums := []string{strconv.Itoa(without[tier])}
		for _, n := range []int{with[tier], all[tier]} {
			if n != without[tier] {
				wantNums = append(wantNums, strings.ReplaceAll(strconv.Itoa(n), ",", ""))
			}
		}
		for i, n := range nums {
			nums[i] = strings.ReplaceAll(n, ",", "")
		}
		if !slices.Equal(nums, wantNums) {
			t.Errorf("docs/tools.md gives tier %d %s tokens, want %s", tier, strings.Join(nums, " and "), strings.Join(wantNums, " and "))
		}
	}
}

func namesOf(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Spec().Name)
	}
	return out
}

// TestTiersComeFromTheToolTable: a Set built from the table of built-in
// tools shows each in the tier the table gives it, and request_tools tells
// the model so.
func TestTiersComeFromTheToolTable(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	table, err := tools.Builtins(tools.Deps{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Tools: table, Max: External})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := s.Get(RequestTools)
	desc := rt.Spec().Description
	for tier, list := range table {
		got := slices.DeleteFunc(namesOf(s.Tools(Tier(tier))), func(n string) bool { return n == RequestTools })
		if want := namesOf(list); !slices.Equal(got, want) {
			t.Errorf("tier %d shows %v, want %v", tier, got, want)
		}
		if line := "Tier " + strconv.Itoa(tier) + ": " + strings.Join(namesOf(list), ", ") + "."; tier > 0 && !strings.Contains(desc, line) {
			t.Errorf("request_tools does not say %q:\n%s", line, desc)
		}
	}
}

// TestRequestToolsSubject: a request_tools call's line shows its query,
// quoted, as it did before the tools said what their calls are about.
func TestRequestToolsSubject(t *testing.T) {
	s, err := New(Config{Tools: [NumTiers][]tools.Tool{{&fakeTool{name: "read_file"}}, nil, nil, {&fakeTool{name: "fetch_url", effect: tools.External}}},
		Max: External, Catalog: newFakeCatalog("jira_create_ticket")})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := s.Get(RequestTools)
	for _, args := range []string{`{"tier":3,"query":"open a jira ticket"}`, `{"tier":1,"reason":"fix it"}`, `{"tool":"fetch_url"}`, `{}`} {
		if got, old := tools.Describe(rt, []byte(args)), tools.Describe(nil, []byte(args)); got != old {
			t.Errorf("%s: subject %q, was %q", args, got, old)
		}
	}
	if got := tools.Describe(rt, []byte(`{"tier":3,"query":"open a ticket"}`)); got != `"open a ticket"` {
		t.Errorf("subject = %q", got)
	}
}
