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
