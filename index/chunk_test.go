package index

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// renderPieces lists pieces one a line: lines, kind, symbol, signature.
func renderPieces(pieces []piece) string {
	var b strings.Builder
	for _, p := range pieces {
		fmt.Fprintf(&b, "%d-%d %s %q %q\n", p.start+1, p.end+1, p.kind, p.symbol, p.sig)
	}
	return b.String()
}

// TestChunkGolden chunks one file per supported language and compares the
// chunk list with testdata/golden. Run with -update to rewrite them.
func TestChunkGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/langs/*")
	if err != nil {
		t.Fatal(err)
	}
	ck := newChunker()
	defer ck.Close()
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lang := detectLang(filepath.Base(file), src)
			pieces, err := ck.chunk(t.Context(), lang, src)
			if err != nil {
				t.Fatal(err)
			}
			got := "lang " + lang + "\n" + renderPieces(pieces)
			golden := filepath.Join("testdata", "golden", filepath.Base(file)+".chunks")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("chunks of %s differ from %s:\ngot:\n%swant:\n%s", file, golden, got, want)
			}
		})
	}
}
