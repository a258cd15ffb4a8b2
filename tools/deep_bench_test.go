package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDeepTreeTools runs glob, grep and read_file of a missing file
// (which searches for the name) in a tree 1,000 directories deep. Before
// the ignore rules were matched per directory each took minutes.
func BenchmarkDeepTreeTools(b *testing.B) {
	ws := newFixture(b)
	deep := filepath.Join(ws.Root(), strings.TrimSuffix(strings.Repeat("d/", 1000), "/"))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(deep, "leaf.go"), []byte("package leaf\n\nfunc Needle() {}\n"), 0o644)
	for _, c := range []struct {
		name string
		tool Tool
		args string
	}{
		{"glob", NewGlob(ws), `{"pattern":"**/leaf.go"}`},
		{"grep", NewGrep(ws), `{"pattern":"func Needle"}`},
		{"read_file_missing", NewReadFile(ws), `{"path":"nowhere/leaf.go"}`},
		{"list_dir", NewListDir(ws), `{"path":"d/d/d","depth":5}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if r := call(b, c.tool, c.args, 0); !strings.Contains(r.Output, "d/d/d") {
					b.Fatalf("%s: %.300s", c.name, r.Output)
				}
			}
		})
	}
}
