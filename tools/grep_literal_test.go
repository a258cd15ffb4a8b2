package tools

import (
	"strings"
	"testing"
)

func TestPrefilter(t *testing.T) {
	tests := []struct {
		expr     string
		wantLit  string
		wantFold bool
	}{
		{"ErrUnexpectedEOF", "ErrUnexpectedEOF", false},
		{`func \w+Handler\(`, "Handler(", false},
		{"(?i)Retry", "retry", true},
		{"(?mi)^func (NewThing)+x", "newthing", true}, // the longest literal wins
		{"foo|barbaz", "", false},                     // alternation: nothing is certain
		{"ab", "", false},                             // too short to be worth it
		{"(?i)привет", "", false},                     // Unicode folding is left to the regexp
		{"x(abc)?y", "", false},
		{"(?:needle){2,}", "needle", false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			p := newPrefilter(tt.expr)
			if string(p.lit) != tt.wantLit || p.fold != tt.wantFold {
				t.Errorf("prefilter = %q fold %v, want %q fold %v", p.lit, p.fold, tt.wantLit, tt.wantFold)
			}
		})
	}
}

func TestContainsFoldASCII(t *testing.T) {
	tests := []struct {
		data, lit string
		want      bool
	}{
		{"return ErrUnexpectedEOF", "errunexpectedeof", true},
		{"ERRUNEXPECTEDEOF", "errunexpectedeof", true},
		{"errUnexpected", "errunexpectedeof", false},
		{"xyz", "xyz", true},
		{"xy", "xyz", false},
		{"", "abc", false},
		{"a_b_c_d", "_d", true},
		{strings.Repeat("Ee", 1000) + "EEX", "eex", true},
		{strings.Repeat("Ee", 1000), "eex", false},
	}
	for _, tt := range tests {
		if got := containsFoldASCII([]byte(tt.data), []byte(tt.lit)); got != tt.want {
			t.Errorf("containsFoldASCII(%.20q, %q) = %v, want %v", tt.data, tt.lit, got, tt.want)
		}
	}
}
