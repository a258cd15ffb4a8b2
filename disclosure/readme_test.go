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
)

type anySearcher struct{}

func (anySearcher) SearchCode(context.Context, string, int, string, int) (string, string, error) {
	return "", "", nil
}

// TestREADMETierTable keeps README's table of tiers true: each row names
// the tools of its tier, in order, and what their schemas cost (tier 0
// without and with search_code), counted as the agent counts its prefix.
func TestREADMETierTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
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
	build := func(search tools.CodeSearcher) *Set {
		b, err := tools.Builtins(tools.Deps{Workspace: ws, Search: search})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Config{Tools: b, Max: External})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	plain, indexed := build(nil), build(anySearcher{})
	without, with := TierTokens(plain.Costs(c)), TierTokens(indexed.Costs(c))

	rows := regexp.MustCompile("(?m)^\\| ([0-3]) [a-z]+ \\| (.*) \\| (.*) \\|$").FindAllStringSubmatch(string(data), -1)
	if len(rows) != NumTiers {
		t.Fatalf("README has %d rows in its tier table, want %d", len(rows), NumTiers)
	}
	names := regexp.MustCompile("`([a-z_]+)`")
	number := regexp.MustCompile(`\d[\d,]*`)
	for _, row := range rows {
		tier, _ := strconv.Atoi(row[1])
		var listed []string
		for _, m := range names.FindAllStringSubmatch(row[2], -1) {
			listed = append(listed, m[1])
		}
		want := namesOf(indexed.Tools(Tier(tier)))
		if !slices.Equal(listed, want) {
			t.Errorf("README lists tier %d as %v, want %v", tier, listed, want)
		}
		nums := number.FindAllString(row[3], -1)
		wantNums := []string{strconv.Itoa(without[tier])}
		if with[tier] != without[tier] {
			wantNums = append(wantNums, strconv.Itoa(with[tier]))
		}
		if !slices.Equal(nums, wantNums) {
			t.Errorf("README gives tier %d %s tokens, want %s", tier, strings.Join(nums, " and "), strings.Join(wantNums, " and "))
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
