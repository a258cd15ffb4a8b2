// Package termtext makes text that tern did not write safe to print to a
// terminal. A model, a model server, a repository's files or a command's
// output can hold control sequences that a terminal obeys: writing the
// clipboard (OSC 52), setting the window title, clearing the screen,
// moving the cursor to overwrite what tern printed. Clean and Writer turn
// every control character into visible text instead, so what is shown is
// what was sent; newlines and tabs stay, carriage returns go.
//
// termtext imports nothing of tern.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Clean returns s with every control character made visible: C0 controls
// and DEL in caret notation (ESC is "^[", BEL "^G"), C1 controls as
// "\u009b", invalid UTF-8 as U+FFFD. Newlines and tabs are kept and
// carriage returns dropped ("\r\n" is a newline; a lone "\r" would let
// text overwrite the line before it).
func Clean(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		write(&b, r, size)
	}
	return b.String()
}

// clean reports whether s needs no change.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				return cleanUTF8(s[i:])
			}
			return false
		}
	}
	return true
}

func cleanUTF8(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return true
}

func write(b *strings.Builder, r rune, size int) {
	switch {
	case r == utf8.RuneError && size <= 1:
		b.WriteRune(utf8.RuneError)
	case r == '\n' || r == '\t':
		b.WriteRune(r)
	case r == '\r':
	case r < 0x20:
		b.WriteByte('^')
		b.WriteByte(byte(r) + '@')
	case r == 0x7f:
		b.WriteString("^?")
	case r >= 0x80 && r <= 0x9f:
		fmt.Fprintf(b, "\\u%04x", r)
	default:
		b.WriteRune(r)
	}
}

// Writer cleans what is written through it, as Clean does, and writes it
// to the writer beneath. A character cut between two writes is held until
// the next.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that cleans text on its way to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes it; it reports p's whole length when the
// writer beneath took everything.
func (w *Writer) Write(p []byte) (int, error) {
	data := p
	if len(w.pending) > 0 {
		data = append(w.pending, p...)
		w.pending = nil
	}
	// Hold back the start of a character that the next write completes.
	if cut := incomplete(data); cut > 0 {
		w.pending = append([]byte(nil), data[len(data)-cut:]...)
		data = data[:len(data)-cut]
	}
	if _, err := io.WriteString(w.w, Clean(string(data))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incomplete returns the length of a UTF-8 character begun but not ended
// at the end of p, 0 when there is none.
func incomplete(p []byte) int {
	for n := 1; n <= 3 && n <= len(p); n++ {
		c := p[len(p)-n]
		if c&0xc0 != 0x80 { // a leading byte
			if c >= 0xc0 && !utf8.FullRune(p[len(p)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
