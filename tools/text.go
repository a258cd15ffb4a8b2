package tools

import (
	"bytes"
	"io"
	"os"
	"unicode/utf8"
)

// sniffSize is how much of a file decides whether it is text.
const sniffSize = 8 << 10

// looksBinary reports whether sample, the start of a file, is not text: it
// holds a NUL byte, or it is not valid UTF-8 and more than 30% of its bytes
// are invalid UTF-8 or control characters no text uses. Text in a legacy
// encoding such as Latin-1 has only a few invalid bytes and counts as text.
func looksBinary(sample []byte) bool {
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if utf8.Valid(sample) {
		return false // the common case, checked fast
	}
	bad := 0
	for i := 0; i < len(sample); {
		c := sample[i]
		if c == 0 {
			return true
		}
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
				bad++
			}
			i++
			continue
		}
		if !utf8.FullRune(sample[i:]) && len(sample) == sniffSize {
			break // a rune cut by the end of the sample
		}
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		i += size
	}
	return bad*100 > len(sample)*30
}

// sniffFile reads the start of the file at path and reports whether it
// looks binary.
func sniffFile(path string) (binary bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, sniffSize)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return looksBinary(buf[:n]), nil
}

// validText returns b as a string with each invalid UTF-8 byte replaced by
// U+FFFD, so the model never receives broken encoding.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b)))
}
