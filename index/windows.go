package index

import (
	"bytes"
	"strings"
)

// runs returns the stretches of rows a..b that hold more than blank lines
// and punctuation, trimmed of blank lines at both ends.
func runs(l *lines, a, b int) [][2]int {
	var out [][2]int
	start := -1
	last := -1
	for r := a; r <= b; r++ {
		blank := len(bytes.TrimSpace(l.line(r))) == 0
		if blank {
			if start >= 0 && r-last > 1 { // two blank lines end a run
				out = appendRun(out, l, start, last)
				start = -1
			}
			continue
		}
		if start < 0 {
			start = r
		}
		last = r
	}
	if start >= 0 {
		out = appendRun(out, l, start, last)
	}
	return out
}

// appendRun keeps a run of rows unless it is only closing punctuation,
// an end keyword or a lone word, such as "}", "end" or "type (".
func appendRun(out [][2]int, l *lines, a, b int) [][2]int {
	words := 0
	for r := a; r <= b && words < 2; r++ {
		line := bytes.TrimSpace(l.line(r))
		if len(line) > 0 && strings.IndexByte("})]", line[0]) >= 0 {
			continue
		}
		eachIdent(string(line), func(string) { words++ })
	}
	if words < 2 {
		return out
	}
	return append(out, [2]int{a, b})
}

// paragraphStarts lists the rows in a..b that follow a blank line or start
// a Markdown heading: the natural places to cut text.
func paragraphStarts(l *lines, a, b int) []int {
	var cuts []int
	for r := a + 1; r <= b; r++ {
		if len(bytes.TrimSpace(l.line(r-1))) == 0 || bytes.HasPrefix(l.line(r), []byte("#")) {
			cuts = append(cuts, r)
		}
	}
	return cuts
}

// windows chunks a file without a grammar: code at its declarations where
// it has some (declWindows), other text in windows. Markdown pieces are
// named after the heading they fall under.
func (c *chunker) windows(l *lines, lang string) []piece {
	var out []piece
	kind := "text"
	if lang == "markdown" {
		kind = "section"
	}
	code := !proseLangs[lang] && !configLangs[lang]
	for _, r := range runs(l, 0, l.count()-1) {
		if code {
			if ps := c.declWindows(l, r[0], r[1]); ps != nil {
				out = append(out, ps...)
				continue
			}
		}
		for _, win := range l.pack(r[0], r[1], paragraphStarts(l, r[0], r[1]), c.window) {
			p := piece{start: win[0], end: win[1], kind: kind}
			if lang == "markdown" {
				p.symbol = heading(l, win[0])
			}
			out = append(out, p)
		}
	}
	return out
}

// heading returns the Markdown heading at or above row.
func heading(l *lines, row int) string {
	for r := row; r >= 0; r-- {
		line := l.line(r)
		if bytes.HasPrefix(line, []byte("#")) {
			return strings.TrimSpace(strings.TrimLeft(string(line), "#"))
		}
	}
	return ""
}
