package tools

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// File names are bytes; what the model reads and writes is UTF-8 text.
// A name that is not valid UTF-8 (Latin-1 from an old archive, say) would
// reach the model with its bad bytes replaced by U+FFFD, a name no tool
// could open. So listings show each byte that is not valid UTF-8 as \xHH,
// and Resolve reads \xHH back as that byte when the path does not exist as
// written.

// shownName returns p as the model should see it: unchanged when it is
// valid UTF-8, else with each invalid byte written as \xHH.
func shownName(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02X`, p[i])
		} else {
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unescapeName turns the \xHH escapes of shownName back into bytes. It
// reports false when p holds none.
func unescapeName(p string) (string, bool) {
	if !strings.Contains(p, `\x`) {
		return p, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+3 < len(p) && p[i+1] == 'x' {
			if v, err := strconv.ParseUint(p[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				changed = true
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String(), changed
}
