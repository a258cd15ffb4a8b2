package tui

import "strings"

// mdStream renders a streaming answer in two parts, so that a flush costs
// what the last block costs, not what the whole answer does: the text
// before the last point where a new top-level block starts is rendered
// once, when that point is seen, and only the open tail after it is
// rendered at each flush. The two parts, one blank line apart, are what
// rendering the whole would give for the Markdown a model writes; the
// presenter still renders the finished answer whole, so a construct that
// reaches back (a reference link defined at the end) is right at the end.
type mdStream struct {
	md *markdown
	// done is how much of the text is rendered for good; it is 0 or a
	// split point.
	done int
	// any is set once some lines are final.
	any bool

	// The scanner: text[:scan] was read, a line at a time.
	scan  int
	split int  // the last split point found
	blank bool // the last line read was blank
	list  bool // the top-level block being read is a list
	// fence and fenceLen describe the open code fence: its character and
	// length, 0 for none.
	fence    byte
	fenceLen int
}

func (s *mdStream) reset() { *s = mdStream{md: s.md} }

// update takes the whole text so far (which only grows) and returns the
// lines that became final since the last call and the lines of the open
// tail, to be shown after them.
func (s *mdStream) update(text string) (add, tail []line) {
	s.read(text)
	if s.split > s.done {
		add = s.md.render(text[s.done:s.split])
		if len(add) > 0 && s.any {
			add = append([]line{{}}, add...)
		}
		s.any = s.any || len(add) > 0
		s.done = s.split
	}
	tail = s.md.render(text[s.done:])
	if len(tail) > 0 && s.any {
		tail = append([]line{{}}, tail...)
	}
	return add, tail
}

// read scans the complete lines after s.scan for split points: the start
// of a line at the left margin after a blank line, outside a code fence,
// that does not continue a list. Nothing before such a line can change
// how the lines from it on render, nor they how it renders.
func (s *mdStream) read(text string) {
	for {
		nl := strings.IndexByte(text[s.scan:], '\n')
		if nl < 0 {
			return
		}
		start := s.scan
		ln := text[start : start+nl]
		s.scan = start + nl + 1
		if s.fence != 0 {
			if c, n, rest := fenceOf(ln); c == s.fence && n >= s.fenceLen && strings.TrimSpace(rest) == "" {
				s.fence = 0
			}
			s.blank = false
			continue
		}
		if strings.TrimSpace(ln) == "" {
			s.blank = true
			continue
		}
		item := listItem(ln)
		if start == 0 {
			s.list = item
		} else if s.blank && ln[0] != ' ' && ln[0] != '\t' && !(item && s.list) {
			s.split, s.list = start, item
		}
		if c, n, _ := fenceOf(ln); c != 0 {
			s.fence, s.fenceLen = c, n
		}
		s.blank = false
	}
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, at most
// three spaces in), its length and what follows it; c is 0 when the line
// is no fence.
func fenceOf(ln string) (c byte, n int, rest string) {
	t := strings.TrimLeft(ln, " ")
	if len(ln)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, ""
	}
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	return t[0], n, t[n:]
}

// listItem reports whether a line starts a list item: "- ", "* ", "+ ",
// "1. " or "1) ", at most three spaces in.
func listItem(ln string) bool {
	t := strings.TrimLeft(ln, " ")
	if len(ln)-len(t) > 3 || t == "" {
		return false
	}
	switch t[0] {
	case '-', '*', '+':
		return len(t) == 1 || t[1] == ' ' || t[1] == '\t'
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')') && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t')
}
