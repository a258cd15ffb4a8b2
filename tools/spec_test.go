package tools

import (
	"bytes"
	"flag"
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

// allTools returns every tool of this package, tier by tier.
func allTools(t *testing.T) []Tool {
	t.Helper()
	ws := newFixture(t)
	cmds, err := CommandTools(ws, nil, CommandPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	return slices.Concat(ReadOnlyTools(ws), []Tool{NewSearchCode(ws, &fakeSearcher{}), NewExplore(ws, nil), NewAskUser(nil)}, EditTools(ws, nil), cmds)
}

// TestSpecsShort keeps the descriptions within what a small model reads
// well and within the token budget of their tier.
func TestSpecsShort(t *testing.T) {
	effects := map[string]Effect{
		"read_file": ReadOnly, "list_dir": ReadOnly, "grep": ReadOnly, "glob": ReadOnly, "search_code": ReadOnly,
		"explore": ReadOnly, "ask_user": ReadOnly,
		"edit_file": Writes, "write_file": Writes,
		"run_command": Executes, "git_status": ReadOnly, "git_diff": ReadOnly, "git_commit": Executes,
	}
	var names []string
	for _, tool := range allTools(t) {
		spec := tool.Spec()
		names = append(names, spec.Name)
		if tool.Effect() != effects[spec.Name] {
			t.Errorf("%s: effect %v, want %v", spec.Name, tool.Effect(), effects[spec.Name])
		}
		if _, ok := tool.(Reviewer); !ok && tool.Effect() != ReadOnly {
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
	want := []string{"read_file", "list_dir", "grep", "glob", "search_code", "explore", "ask_user", "edit_file", "write_file", "run_command", "git_status", "git_diff", "git_commit"}
	if !slices.Equal(names, want) {
		t.Errorf("tool order = %v, want %v", names, want)
	}
}

// TestSpecTokens counts the cl100k tokens of each tool's wire form, the
// nearest offline stand-in for what the model's tokenizer sees, and keeps
// each tier within its share of the budget (the whole tier-0 request under
// 1,000 tokens, every tier together under 2,500). search_code is in tier 0
// when the repository has an index. explore and ask_user (about 180 tokens
// together) raised tier 0's share from 530 to 720: they save far more of
// the window than they cost.
func TestSpecTokens(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	ws := newFixture(t)
	cmds, err := CommandTools(ws, nil, CommandPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	tiers := []struct {
		name   string
		tools  []Tool
		budget int
	}{
		{"tier 0 (read)", append(ReadOnlyTools(ws), NewSearchCode(ws, &fakeSearcher{}), NewExplore(ws, nil), NewAskUser(nil)), 720},
		{"tier 1 (edit)", EditTools(ws, nil), 260},
		{"tier 2 (commands)", cmds, 320},
	}
	for _, tier := range tiers {
		total := 0
		for _, tool := range tier.tools {
			n := len(enc.Encode(string(tool.Spec().WireJSON()), nil, nil))
			t.Logf("%-11s %3d tokens", tool.Spec().Name, n)
			total += n
		}
		t.Logf("%s: %d tokens", tier.name, total)
		if total > tier.budget {
			t.Errorf("%s takes %d cl100k tokens, over its budget of %d", tier.name, total, tier.budget)
		}
	}
}
