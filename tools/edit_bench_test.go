package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFile writes a 5,000-line Go-like file and returns a workspace where
// it has been read.
func benchFile(b *testing.B) *Workspace {
	b.Helper()
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "\tresult%d := compute(%d, \"value %d\") // step %d\n", i, i, i, i)
	}
	ws := newFixture(b)
	p := filepath.Join(ws.Root(), "big.go")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ws.reads.mark(p)
	return ws
}

// BenchmarkEditPlan measures working out an edit of a 5,000-line file:
// an exact match, a whitespace-tolerant match, and a miss that searches
// for the closest lines.
func BenchmarkEditPlan(b *testing.B) {
	ws := benchFile(b)
	tool := NewEditFile(ws, nil).(*editFile)
	for _, bc := range []struct{ name, args string }{
		{"exact", `{"path":"big.go","old_string":"result4000 := compute(4000, \"value 4000\")","new_string":"x"}`},
		{"whitespace", `{"path":"big.go","old_string":"result4000  :=  compute(4000,  \"value 4000\")","new_string":"x"}`},
		{"closest", `{"path":"big.go","old_string":"result4000 := compute(4001, \"value 4000\") // stop 4000\n\tresult4001 := compute(4001, \"value 4001\")","new_string":"x"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_, refused := tool.plan(b.Context(), []byte(bc.args))
				if (refused == nil) == (bc.name == "closest") {
					b.Fatalf("unexpected outcome: %v", refused)
				}
			}
		})
	}
}
