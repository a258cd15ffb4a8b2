package words

import "testing"

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
		{"ééééééé", 6, "ééééé…"}, // characters, not bytes
	} {
		if got := OneLine(tt.s, tt.n); got != tt.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
