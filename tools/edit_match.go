package tools

import (
	"regexp"
	"strings"
	"unicode"
)

// span is the byte range of a file's content that old_string matched.
type span struct{ start, end int }

// exactSpans returns the non-overlapping occurrences of old in content.
func exactSpans(content, old string) []span {
	var spans []span
	for i := 0; i <= len(content)-len(old); {
		j := strings.Index(content[i:], old)
		if j < 0 {
			break
		}
		spans = append(spans, span{i + j, i + j + len(old)})
		i += j + len(old)
	}
	return spans
}

// looseSpans returns the occurrences of old in content when every run of
// whitespace (spaces, tabs, newlines) counts as one space and whitespace at
// either end of old is ignored: the indentation, trailing spaces and line
// endings small models get wrong. Each span starts and ends at
// non-whitespace.
func looseSpans(content, old string) []span {
	want := strings.Join(strings.Fields(old), " ")
	if want == "" {
		return nil
	}
	// norm is content with whitespace runs collapsed; pos maps its bytes
	// back to content.
	norm := make([]byte, 0, len(content))
	pos := make([]int, 0, len(content))
	space := false
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			if !space {
				norm = append(norm, ' ')
				pos = append(pos, i)
			}
			space = true
			continue
		}
		space = false
		norm = append(norm, c)
		pos = append(pos, i)
	}
	var spans []span
	for _, s := range exactSpans(string(norm), want) {
		spans = append(spans, span{pos[s.start], pos[s.end-1] + 1})
	}
	return spans
}

// lineNumbers matches the "12\t" that read_file puts before each line.
var lineNumbers = regexp.MustCompile(`(?m)^ *\d+\t`)

// stripLineNumbers removes read_file's line numbers from s when every
// non-empty line of it carries one; models often copy them into old_string.
func stripLineNumbers(s string) (string, bool) {
	lines := strings.Split(s, "\n")
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !lineNumbers.MatchString(l) {
			return s, false
		}
		n++
	}
	if n == 0 {
		return s, false
	}
	return lineNumbers.ReplaceAllString(s, ""), true
}

// reindent adapts new, meant to replace old, to the indentation the file
// uses where old matched loosely (fileLines are the matched lines of the
// file). The first line loses its leading whitespace, since the file's own
// indentation before the match is kept; later lines have old's indentation
// swapped for the file's, line by line.
func reindent(new, old string, fileLines []string) string {
	lines := strings.Split(trimBlankLines(new), "\n")
	lines[0] = strings.TrimLeft(lines[0], " \t")
	oldLines := strings.Split(trimBlankLines(old), "\n")
	if len(oldLines) != len(fileLines) || len(lines) == 1 {
		return strings.Join(lines, "\n")
	}
	swap := map[string]string{}
	var keys []string
	for k, ol := range oldLines {
		from, to := indentOf(ol), indentOf(fileLines[k])
		if _, ok := swap[from]; !ok && strings.TrimSpace(ol) != "" {
			swap[from] = to
			keys = append(keys, from)
		}
	}
	for i := 1; i < len(lines); i++ {
		ind := indentOf(lines[i])
		if to, ok := swap[ind]; ok {
			lines[i] = to + lines[i][len(ind):]
			continue
		}
		best := ""
		for _, k := range keys { // the longest known indentation it starts with
			if len(k) > len(best) && strings.HasPrefix(ind, k) {
				best = k
			}
		}
		if best != "" {
			lines[i] = swap[best] + lines[i][len(best):]
		}
	}
	return strings.Join(lines, "\n")
}

// trimBlankLines removes the blank lines at either end of s, and the
// whitespace after its last line.
func trimBlankLines(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}

func indentOf(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// lineOf returns the 1-based line number of byte offset off in content.
func lineOf(content string, off int) int {
	return strings.Count(content[:off], "\n") + 1
}

// closestLines finds the lines of content most like old: the window of as
// many lines as old has whose lines, trimmed, are most alike (by shared
// character pairs). It returns 1-based first and last lines and a score from
// 0 (nothing alike) to 1. Files too large to compare return a zero score.
func closestLines(content, old string) (first, last int, score float64) {
	want := strings.Split(trimBlankLines(old), "\n")
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	n := min(len(want), len(lines))
	if n == 0 || len(lines)*n > 4_000_000 {
		return 0, 0, 0
	}
	wantGrams := make([]map[string]int, len(want))
	for k := range n {
		wantGrams[k] = bigrams(strings.TrimSpace(want[k]))
	}
	lineGrams := make([]map[string]int, len(lines))
	best := -1.0
	for i := 0; i+n <= len(lines); i++ {
		total := 0.0
		for k := range n {
			if lineGrams[i+k] == nil {
				lineGrams[i+k] = bigrams(strings.TrimSpace(lines[i+k]))
			}
			total += dice(wantGrams[k], lineGrams[i+k], strings.TrimSpace(want[k]), strings.TrimSpace(lines[i+k]))
		}
		if s := total / float64(n); s > best {
			best, first = s, i+1
		}
	}
	return first, first + n - 1, best
}

func bigrams(s string) map[string]int {
	m := make(map[string]int, len(s))
	for i := 0; i+1 < len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two strings over their character
// pairs: 1 for equal strings, 0 for strings with no pair in common.
func dice(a, b map[string]int, sa, sb string) float64 {
	if sa == sb {
		return 1
	}
	na, nb := len(sa)-1, len(sb)-1
	if na <= 0 || nb <= 0 {
		return 0
	}
	shared := 0
	for g, ca := range a {
		shared += min(ca, b[g])
	}
	return 2 * float64(shared) / float64(na+nb)
}
