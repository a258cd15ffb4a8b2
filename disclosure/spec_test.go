package disclosure

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// realSet is a Set over the real tools of every tier.
func realSet(t *testing.T, maxTier Tier) *Set {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := tools.CommandTools(ws, nil, tools.CommandPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Tools: [NumTiers][]tools.Tool{tools.ReadOnlyTools(ws), tools.EditTools(ws, nil), cmds}, Max: maxTier})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRequestToolsGolden pins the wire form of request_tools for each cap:
// it is part of every prompt prefix.
func TestRequestToolsGolden(t *testing.T) {
	for _, maxTier := range []Tier{Edit, Commands, External} {
		t.Run(maxTier.String(), func(t *testing.T) {
			rt, _ := realSet(t, maxTier).Get("request_tools")
			got := append(rt.Spec().WireJSON(), '\n')
			path := filepath.Join("testdata", "request_tools_max"+string(rune('0'+maxTier))+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s changed (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// TestTierTokens reports what each tool and tier costs, counted as the
// agent counts its prefix, and holds request_tools to its share of the
// tier-0 budget.
func TestTierTokens(t *testing.T) {
	c, err := budget.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	s := realSet(t, External)
	costs := s.Costs(c)
	for _, tc := range costs {
		t.Logf("%-13s %s  %3d tokens  visible=%v", tc.Name, tc.Tier, tc.Tokens, tc.Visible)
	}
	sums := TierTokens(costs)
	for tier, n := range sums {
		t.Logf("%s: %d tokens", Tier(tier), n)
	}
	i := slices.IndexFunc(costs, func(tc ToolCost) bool { return tc.Name == "request_tools" })
	if i < 0 || costs[i].Tier != Read || !costs[i].Visible {
		t.Fatalf("request_tools cost = %+v", costs)
	}
	if n := costs[i].Tokens; n > 120 {
		t.Errorf("request_tools takes %d tokens, want at most 120", n)
	}
	if total := sums[0] + sums[1] + sums[2] + sums[3]; total > 1200 {
		t.Errorf("all tiers' tools take %d tokens, want at most 1,200 (2,500 with the system prompt)", total)
	}
}

// TestReservedNames: MCP tools may take none of the names of tern's own
// tools, request_tools included.
func TestReservedNames(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got := ReservedNames(ws)
	for _, name := range []string{"read_file", "search_code", "explore", "run_command", "fetch_url", RequestTools} {
		if !slices.Contains(got, name) {
			t.Errorf("ReservedNames lacks %s: %v", name, got)
		}
	}
}
