package words

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"fix the\n  bug\tplease", 60, "fix the bug please"},
		{"  ", 10, ""},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"ééééééé", 6, "ééééé…"},                 // characters, not bytes
		{"caf\xe9 \xff", 10, "caf\uFFFD \uFFFD"}, // not UTF-8: as a terminal shows it
	} {
		if got := OneLine(tt.s, tt.n); got != tt.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		want string
	}{
		{"\n  exit status 1\nmore\n", "exit status 1"},
		{"one line", "one line"},
		{"", ""},
		{strings.Repeat("x", 160), strings.Repeat("x", 160)},
		{strings.Repeat("x", 161), strings.Repeat("x", 157) + "…"},
	} {
		if got := FirstLine(tt.s, 160); got != tt.want {
			t.Errorf("FirstLine(%.20q…) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
