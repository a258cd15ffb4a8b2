package budget

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// headShare is the part of a shortened text kept from its start; the rest
// of the room goes to its end, where errors and results usually are.
const headShare = 0.6

// Shorten cuts text to at most max tokens as count counts them, keeping its
// head and its tail, cut at line ends where the lines allow it, with a note
// between them saying how much was left out and why. Text within max is
// returned as it is. A max too small for even the note gives a bare note,
// or "" when not even that fits.
func Shorten(count func(string) int, text string, max int) string {
	return shorten(count, text, count(text), max)
}

// shorten is Shorten when the caller knows text's count, total.
func shorten(count func(string) int, text string, total, max int) string {
	if total <= max {
		return text
	}
	note := func(cut int) string {
		return fmt.Sprintf("\n[… %d of %d tokens cut here: too large for the context window …]\n", cut, total)
	}
	noteCost := count(note(total))
	if max < noteCost+8 {
		short := fmt.Sprintf("[%d tokens cut: too large for the context window]", total)
		if count(short) <= max {
			return short
		}
		return ""
	}
	room := max - noteCost
	// Start from the byte share the room suggests, then shrink until the
	// count agrees: token density varies along a text.
	keep := int(float64(len(text)) * float64(room) / float64(total))
	for range 12 {
		head := HeadCut(text, int(float64(keep)*headShare))
		tail := TailCut(text, keep-head)
		if tail < head {
			tail = head
		}
		kept := count(text[:head]) + count(text[tail:])
		if kept <= room {
			body := strings.TrimSuffix(text[:head], "\n") + note(total-kept) + strings.TrimPrefix(text[tail:], "\n")
			if count(body) <= max {
				return body
			}
		}
		keep = keep * 8 / 10
	}
	return note(total)[1:]
}

// HeadCut returns where to end a head of at most n bytes of s: after the
// last newline in the second half of that room, else at a rune boundary.
func HeadCut(s string, n int) int {
	n = min(max(n, 0), len(s))
	if i := strings.LastIndexByte(s[:n], '\n'); i >= n/2 && i >= 0 {
		return i + 1
	}
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// TailCut returns where to start a tail of at most n bytes of s: after the
// first newline in the first half of that room, else at a rune boundary.
func TailCut(s string, n int) int {
	n = min(max(n, 0), len(s))
	start := len(s) - n
	if j := strings.IndexByte(s[start:], '\n'); j >= 0 && j < n/2 {
		return start + j + 1
	}
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return start
}
