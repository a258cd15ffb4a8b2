package index

import "bytes"

// limits bounds the size of pieces.
type limits struct{ lines, bytes int }

// lines indexes the lines of a source file.
type lines struct {
	src   []byte
	start []int // byte offset of each line; one extra entry for the end
}

func newLines(src []byte) *lines {
	l := &lines{src: src, start: []int{0}}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			l.start = append(l.start, i+1)
		}
	}
	l.start = append(l.start, len(src)+1)
	return l
}

func (l *lines) count() int { return len(l.start) - 1 }

// text returns rows a..b without the final newline.
func (l *lines) text(a, b int) string {
	s, e := l.span(a, b)
	return string(l.src[s:e])
}

// span returns the byte range of rows a..b without the final newline.
func (l *lines) span(a, b int) (start, end int) {
	start, end = l.start[a], min(l.start[b+1]-1, len(l.src))
	if end > start && l.src[end-1] == '\n' {
		end--
	}
	return start, end
}

// line returns row r without its newline.
func (l *lines) line(r int) []byte {
	end := min(l.start[r+1]-1, len(l.src))
	return bytes.TrimSuffix(l.src[l.start[r]:end], []byte("\n"))
}

func (l *lines) fits(a, b int, lim limits) bool {
	return b-a+1 <= lim.lines && l.start[b+1]-l.start[a] <= lim.bytes+1
}

// pack cuts rows a..b into pieces that fit lim, cutting at the latest
// allowed row (a row in cuts) that keeps a piece within the limits, or
// anywhere when no cut fits.
func (l *lines) pack(a, b int, cuts []int, lim limits) [][2]int {
	return l.packTiers(a, b, lim, cuts)
}

// packTiers is pack with tiers of allowed rows, each sorted: a piece ends
// before a row of the first tier that has one within the limits.
func (l *lines) packTiers(a, b int, lim limits, tiers ...[]int) [][2]int {
	var out [][2]int
	next := make([]int, len(tiers)) // per tier, the first cut not yet passed
	for a <= b {
		if l.fits(a, b, lim) {
			return append(out, [2]int{a, b})
		}
		best := -1
		for t, cuts := range tiers {
			i := next[t]
			for i < len(cuts) && cuts[i] <= a {
				i++
			}
			next[t] = i
			for j := i; j < len(cuts) && cuts[j] <= b && l.fits(a, cuts[j]-1, lim); j++ {
				best = cuts[j]
			}
			if best >= 0 {
				break
			}
		}
		if best < 0 {
			best = a + 1
			for best <= b && l.fits(a, best, lim) {
				best++
			}
		}
		out = append(out, [2]int{a, best - 1})
		a = best
	}
	return out
}
