package tui

import (
	"regexp"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"
)

// span is a run of text in one style. Its text holds no newline.
//
// The conversation is kept as styled spans rather than tview tag strings:
// model text is never parsed for tags, so brackets in code cannot be
// swallowed, and a block can be re-wrapped on its own when it changes
// instead of re-laying out the whole scrollback.
type span struct {
	text  string
	style tcell.Style
}

// line is one logical line of styled text.
type line struct {
	spans []span
	// hang indents the rows the line wraps onto, so list items and quotes
	// keep their left edge.
	hang int
	// lead, when set, starts each row the line wraps onto in place of
	// hang's spaces: a diff line's + or - marker, so that no row of an
	// added or removed line reads as context.
	lead []span
}

// plain returns the line's text without styles.
func (l line) plain() string {
	var b strings.Builder
	for _, s := range l.spans {
		b.WriteString(s.text)
	}
	return b.String()
}

// styledLine makes a one-span line.
func styledLine(text string, st tcell.Style) line {
	return line{spans: []span{{text: text, style: st}}}
}

// textLines splits text into lines of one style, cleaned for the terminal.
func textLines(text string, st tcell.Style) []line {
	text = strings.TrimRight(cleanText(text), "\n")
	if text == "" {
		return nil
	}
	parts := strings.Split(text, "\n")
	out := make([]line, len(parts))
	for i, p := range parts {
		out[i] = styledLine(p, st)
	}
	return out
}

// reportLines are the lines of a report in columns as tern doctor writes
// it, "Label       ✓ text" with its details indented to the text: the
// rows a line wraps onto start under its text, not at the left edge,
// where they read as labels (a 60-column terminal wraps most of them).
func reportLines(text string, st tcell.Style) []line {
	const textColumn = 14 // an 11-cell label, its mark, a space
	lines := textLines(text, st)
	for i := range lines {
		p := []rune(lines[i].plain())
		indent := len(p) - len([]rune(strings.TrimLeft(string(p), " ")))
		switch {
		case indent > 0:
			lines[i].hang = indent
		case len(p) > textColumn && p[textColumn-3] == ' ' && p[textColumn-2] != ' ' && p[textColumn-1] == ' ':
			lines[i].hang = textColumn
		}
	}
	return lines
}

// ansiPattern matches terminal escape sequences that command output may
// carry; they would corrupt the screen if drawn.
var ansiPattern = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// cleanText makes text safe to draw: escape sequences and control
// characters go, tabs become spaces to the next stop of four, and CRLF
// becomes LF.
func cleanText(s string) string {
	if strings.ContainsRune(s, '\x1b') {
		s = ansiPattern.ReplaceAllString(s, "")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
			col = 0
		case r == '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case r < 0x20 || r == 0x7f || r == '\r':
			// dropped
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// cell is one grapheme cluster on its way into a row.
type cell struct {
	text  string
	width int
	style tcell.Style
	space bool
}

// wrap breaks a line into rows of at most width columns, at spaces where
// it can and inside a word where it must. Wide characters take two columns
// and are never split.
func wrap(l line, width int) [][]span {
	if width < 1 {
		width = 1
	}
	var cells []cell
	total := 0
	for _, s := range l.spans {
		state := -1
		rest := s.text
		for rest != "" {
			var c string
			var w int
			c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
			cells = append(cells, cell{text: c, width: w, style: s.style, space: c == " "})
			total += w
		}
	}
	if total <= width {
		return [][]span{l.spans}
	}
	hang := min(l.hang, width/2)
	lead := l.lead
	if w := spansWidth(lead); w > width/2 {
		lead = nil // too narrow for it: spaces, as far as they fit
	} else if lead != nil {
		hang = w
	}
	var rows [][]span
	start := 0
	for start < len(cells) {
		avail := width
		if len(rows) > 0 {
			avail -= hang
			// A continuation row does not start with the space it broke at.
			for start < len(cells) && cells[start].space {
				start++
			}
			if start == len(cells) {
				break
			}
		}
		w, end, lastBreak := 0, start, -1
		for end < len(cells) && w+cells[end].width <= avail {
			if cells[end].space {
				lastBreak = end
			}
			w += cells[end].width
			end++
		}
		if end == start { // a wide character in a one-column row
			end++
		}
		if end < len(cells) && !cells[end].space && lastBreak > start {
			end = lastBreak
		}
		row := cellSpans(cells[start:end])
		switch {
		case len(rows) == 0 || hang == 0:
		case lead != nil:
			row = append(append([]span(nil), lead...), row...)
		default:
			row = append([]span{{text: strings.Repeat(" ", hang)}}, row...)
		}
		rows = append(rows, row)
		start = end
	}
	return rows
}

// cellSpans merges cells of the same style back into spans.
func cellSpans(cells []cell) []span {
	var out []span
	var b strings.Builder
	for i, c := range cells {
		if i > 0 && c.style != cells[i-1].style {
			out = append(out, span{text: b.String(), style: cells[i-1].style})
			b.Reset()
		}
		b.WriteString(c.text)
	}
	if len(cells) > 0 {
		out = append(out, span{text: b.String(), style: cells[len(cells)-1].style})
	}
	return out
}

// drawSpans draws one row at (x, y), clipped to width, and returns the
// columns used. Styles without a background keep the one of base.
func drawSpans(screen tcell.Screen, x, y, width int, spans []span, base tcell.Style) int {
	used := 0
	_, bg, battrs := base.Decompose()
	for _, s := range spans {
		st := s.style
		if _, sbg, _ := st.Decompose(); sbg == tcell.ColorDefault {
			st = st.Background(bg)
		}
		if battrs&tcell.AttrReverse != 0 {
			st = st.Reverse(true) // the mono theme's selection
		}
		state := -1
		rest := s.text
		for rest != "" {
			var c string
			var w int
			c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
			if w == 0 {
				continue
			}
			if used+w > width {
				return used
			}
			runes := []rune(c)
			screen.SetContent(x+used, y, runes[0], runes[1:], st)
			for i := 1; i < w; i++ {
				screen.SetContent(x+used+i, y, ' ', nil, st)
			}
			used += w
		}
	}
	return used
}

// textWidth is the number of columns s takes.
func textWidth(s string) int { return uniseg.StringWidth(s) }

// clip shortens s to at most n columns, ending it with "…" when cut.
func clip(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	var b strings.Builder
	w, state := 0, -1
	rest := s
	for rest != "" {
		var c string
		var cw int
		c, rest, cw, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if w+cw > n-1 {
			break
		}
		b.WriteString(c)
		w += cw
	}
	return b.String() + "…"
}

// oneLine folds s onto one line of at most n columns.
func oneLine(s string, n int) string {
	return clip(strings.Join(strings.Fields(cleanText(s)), " "), n)
}
