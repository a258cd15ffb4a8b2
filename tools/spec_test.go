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
	for _, tool := range ReadOnlyTools(newFixture(t)) {
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

// TestSpecsShort keeps the descriptions within what a small model reads
// well and within the tier-0 token budget.
func TestSpecsShort(t *testing.T) {
	tools := ReadOnlyTools(newFixture(t))
	var names []string
	for _, tool := range tools {
		spec := tool.Spec()
		names = append(names, spec.Name)
		if tool.Effect() != ReadOnly {
			t.Errorf("%s: effect %v, want read-only", spec.Name, tool.Effect())
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
	if want := []string{"read_file", "list_dir", "grep", "glob"}; !slices.Equal(names, want) {
		t.Errorf("ReadOnlyTools order = %v, want %v", names, want)
	}
}

// TestSpecTokens counts the cl100k tokens of the four tools' wire form,
// the nearest offline stand-in for what the model's tokenizer sees.
func TestSpecTokens(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tool := range ReadOnlyTools(newFixture(t)) {
		n := len(enc.Encode(string(tool.Spec().WireJSON()), nil, nil))
		t.Logf("%-9s %3d tokens", tool.Spec().Name, n)
		total += n
	}
	t.Logf("all four  %3d tokens", total)
	const budget = 420 // of the < 1,000 the whole tier-0 request may use
	if total > budget {
		t.Errorf("the four tools take %d cl100k tokens, over their budget of %d", total, budget)
	}
}
