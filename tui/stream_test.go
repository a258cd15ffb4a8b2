package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
)

// streamDocs are answers with the constructs whose rendering depends on
// what comes before or after: lists that turn loose, fences with blank
// lines, indented continuations, quotes, tables, headings.
var streamDocs = []string{
	strings.Join(streamReply(600), ""),
	"Intro paragraph.\n\n- one\n- two\n\n- three, the list is now loose\n\nAfter the list.\n\n1. first\n2. second\n\n   continued item\n\n3. third\n\nEnd.\n",
	"```go\nfunc f() {\n\n\treturn\n}\n\nx := 1\n```\n\nText after.\n\n~~~\n```\nnot a close\n~~~\n\nMore.\n",
	"> quoted\n> more\n\n> another quote\n\nPara\nwith lazy\nlines\n\n    indented code\n\n    more code\nback\n\n# Heading\n\nSetext\n===\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone.",
	"* star\n\n+ plus\n\n- dash\n\n10) ten\n\n* * *\n\n  - nested\n\ntext",
}

// TestStreamRendersAsWhole streams each answer in random pieces and checks,
// after every flush, that the view holds what rendering the text so far
// whole gives.
func TestStreamRendersAsWhole(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for di, doc := range streamDocs {
		sim := tcell.NewSimulationScreen("UTF-8")
		a := New(Config{Root: "/r", Screen: sim}, Deps{Connect: waitForever})
		sim.SetSize(60, 20)
		a.conv.SetRect(0, 0, 60, 20)
		for pos := 0; pos < len(doc); {
			n := min(len(doc)-pos, 1+rng.IntN(12))
			for _, op := range a.pres.event(agent.Token{Text: doc[pos : pos+n]}, 1) {
				op()
			}
			pos += n
			if rng.IntN(3) > 0 && pos < len(doc) {
				continue
			}
			for _, op := range a.pres.flush() {
				op()
			}
			if rng.IntN(2) == 0 {
				a.conv.Draw(sim)
			}
			_, b := a.conv.find(a.pres.answerID)
			want := renderText(a.md.render(doc[:pos]))
			if got := renderText(b.lines()); got != want {
				t.Fatalf("doc %d after %d bytes:\nstreamed:\n%s\nwhole:\n%s\ntext:\n%s", di, pos, got, want, doc[:pos])
			}
			// The rows kept must be the rows of wrapping the lines anew.
			if rows, width := b.rows, b.width; rows != nil {
				kept := rowsText(rows)
				b.invalidate()
				if fresh := rowsText(b.layout(width)); kept != fresh {
					t.Fatalf("doc %d after %d bytes: rows differ:\n%s\nwant\n%s", di, pos, kept, fresh)
				}
			}
		}
	}
}

func renderText(lines []line) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%d %v\n", l.hang, l.spans)
	}
	return b.String()
}

func rowsText(rows [][]span) string {
	var b strings.Builder
	for _, r := range rows {
		for _, s := range r {
			b.WriteString(s.text)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestLastLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"a\nb\nc\nd", 2, "c\nd"},
		{"a\nb\nc\nd\n\n", 2, "c\nd\n\n"},
		{"a\nb", 5, "a\nb"},
		{"", 3, ""},
	} {
		if got := lastLines(tt.s, tt.n); got != tt.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
