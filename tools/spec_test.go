package tools

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ternhq/tern/models"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestSpecGolden pins what the model reads: the exact wire form of each
// tool. A change here changes every prompt prefix, so it must be deliberate
// (go test ./tools -run SpecGolden -update).
func TestSpecGolden(t *testing.T) {
	for _, tool := range allTools(t) {
		name := tool.Spec().Name
		t.Run(name, func(t *testing.T) {
			got := append(tool.Spec().WireJSON(), '\n')
			path := filepath.Join("testdata", name+".golden")
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

// builtinTiers returns every built-in tool, search_code included, by tier
// (the table in builtin.go).
func builtinTiers(t *testing.T) [NumTiers][]Tool {
	t.Helper()
	tiers, err := Builtins(Deps{Workspace: newFixture(t), Search: &fakeSearcher{}, Servers: &fakeServers{}})
	if err != nil {
		t.Fatal(err)
	}
	return tiers
}

// allTools returns every built-in tool, tier by tier.
func allTools(t *testing.T) []Tool {
	t.Helper()
	tiers := builtinTiers(t)
	return slices.Concat(tiers[:]...)
}

// TestBuiltinsGolden pins the built-in tools as the model meets them: the
// tier of each, its order within the tier (part of the prompt prefix), and
// its effect (what runs in parallel, what asks the user). A new tool
// changes it on purpose (go test ./tools -run BuiltinsGolden -update).
func TestBuiltinsGolden(t *testing.T) {
	var b strings.Builder
	for tier, list := range builtinTiers(t) {
		for _, tool := range list {
			fmt.Fprintf(&b, "%d %-12s %s\n", tier, tool.Spec().Name, tool.Effect())
		}
	}
	path := filepath.Join("testdata", "builtins.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("%s changed (-want +got):\n%s", path, diff)
	}
}

// TestSpecsShort keeps the descriptions within what a small model reads
// well and within the token budget of their tier.
func TestSpecsShort(t *testing.T) {
	for _, tool := range allTools(t) {
		spec := tool.Spec()
		if _, ok := tool.(Reviewer); !ok && (tool.Effect() == Writes || tool.Effect() == Executes) {
			t.Errorf("%s changes things but cannot review a call before it runs", spec.Name)
		}
		if n := len(strings.Fields(spec.Description)); n > 45 {
			t.Errorf("%s: description has %d words, want at most 45", spec.Name, n)
		}
		for _, p := range models.SchemaParams(spec.Parameters) {
			if n := len(strings.Fields(p.Description)); n == 0 || n > 12 {
				t.Errorf("%s.%s: description has %d words, want 1 to 12", spec.Name, p.Name, n)
			}
		}
	}
}

// TestSpecTokens counts the cl100k tokens of each tool's wire form, the
// nearest offline stand-in for what the model's tokenizer sees, and keeps
// each tier within its share of the budget (the whole tier-0 request under
// 1,000 tokens, every tier together under 2,500). search_code is in tier 0
// when the repository has an index. explore and ask_user (about 180 tokens
// together) raised tier 0's share from 530 to 720: they save far more of
// the window than they cost. definition and references (about 200) join
// tier 0 only while a language server runs, in place of greps for a
// common name that cost more: 920.
func TestSpecTokens(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	budgets := [NumTiers]int{920, 260, 320, 100}
	for tier, list := range builtinTiers(t) {
		total := 0
		for _, tool := range list {
			n := len(enc.Encode(string(tool.Spec().WireJSON()), nil, nil))
			t.Logf("%-11s %3d tokens", tool.Spec().Name, n)
			total += n
		}
		t.Logf("tier %d: %d tokens", tier, total)
		if total > budgets[tier] {
			t.Errorf("tier %d takes %d cl100k tokens, over its budget of %d", tier, total, budgets[tier])
		}
	}
}
