package termtext

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"café ✓ 日本", "café ✓ 日本"},
		{"\x1b]52;c;aGVsbG8=\x07", "^[]52;c;aGVsbG8=^G"}, // clipboard write
		{"\x1b]0;evil title\x07", "^[]0;evil title^G"},   // window title
		{"\x1b[2J\x1b[H", "^[[2J^[[H"},                   // clear screen
		{"fake\rreal", "fakereal"},                       // overwrite the line
		{"line\r\n", "line\n"},                           // CRLF
		{"back\bspace\x7f", "back^Hspace^?"},             // overstrike
		{"\u009b31m C1 CSI", "\\u009b31m C1 CSI"},        // 8-bit CSI
		{"bad \xff\xfe byte", "bad \uFFFD\uFFFD byte"},   // not UTF-8
		{"\x00nul", "^@nul"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// TestWriterAcrossWrites: a character or a CRLF cut between writes comes
// out as one.
func TestWriterAcrossWrites(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	in := "é\x1b[2J日\r\nend"
	for i := 0; i < len(in); i++ {
		if n, err := w.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got, want := b.String(), "é^[[2J日\nend"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b]52;c;x\x07 ok\r\n\u009b")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("Clean(%q) = %q keeps control %U", s, out, r)
			}
		}
		if Clean(out) != out {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
	})
}
