package words

import "strings"

// OneLine is s on one line, its runs of white space made one space, cut to
// n characters with an ellipsis: a title in a list.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// FirstLine is the first line of s, trimmed, cut to n bytes: a longer
// line keeps n-3 bytes and an ellipsis. It shows an error or a tool's
// output in one line.
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = s[:n-len("…")] + "…"
	}
	return s
}
