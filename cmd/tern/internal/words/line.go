package words

import "strings"

// OneLine is s on one line, its runs of white space made one space, cut to
// n characters with an ellipsis: a title in a list. Bytes that are not
// UTF-8 become U+FFFD, as a terminal shows them: raw, a 0xff byte is
// text/tabwriter's escape character, and it swallowed the cells after it,
// so tern sessions' table came apart below a prompt holding one.
func OneLine(s string, n int) string {
	s = strings.ToValidUTF8(strings.Join(strings.Fields(s), " "), "\uFFFD")
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
