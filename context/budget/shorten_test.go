package budget

import (
	"strings"
	"testing"
)

func TestShorten(t *testing.T) {
	c := newCounter(t)
	var b strings.Builder
	for i := range 2000 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(" of the big file\n")
	}
	text := "FIRST LINE\n" + b.String() + "LAST LINE\n"
	tests := []struct {
		name string
		text string
		max  int
	}{
		{"lines", text, 500},
		{"one long run", strings.Repeat("a", 30_000), 300},
		{"multibyte", strings.Repeat("héllo wörld ✓ ", 2000), 400},
		{"tight", text, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Shorten(c.Count, tt.text, tt.max)
			if n := c.Count(got); n > tt.max {
				t.Fatalf("shortened to %d tokens, want at most %d", n, tt.max)
			}
			if !strings.Contains(got, "too large for the context window") {
				t.Errorf("no note says the text was cut:\n%s", got)
			}
			if tt.max >= 100 && (!strings.HasPrefix(got, tt.text[:8]) || !strings.HasSuffix(got, tt.text[len(tt.text)-8:])) {
				t.Errorf("head or tail lost:\n%.200s … %s", got, got[max(0, len(got)-100):])
			}
		})
	}
	if got := Shorten(c.Count, "short text", 100); got != "short text" {
		t.Errorf("a text within the limit was changed: %q", got)
	}
	if got := Shorten(c.Count, text, 3); got != "" {
		t.Errorf("a limit too small for the note gave %q", got)
	}
}
