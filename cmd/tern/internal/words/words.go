// Package words holds the wording tern's messages to the user share: a
// list written "a, b or c", a count of things, a size in bytes for people,
// and the known name a mistyped one was probably meant as ("did you
// mean"), for flags, config keys and values.
//
// It imports nothing of tern.
package words

import (
	"fmt"
	"strings"
)

// OrList writes "a, b, c or d".
func OrList(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

// DidYouMean returns `; did you mean "x"?` for the nearest of known to s,
// or "" when none is near: within a third of the word's length in edits,
// or one that s is a prefix of.
func DidYouMean(s string, known []string) string {
	if best := Nearest(s, known); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// Nearest is the word of known closest to s, or "" when none is near.
func Nearest(s string, known []string) string {
	if s == "" {
		return ""
	}
	best, bestD := "", 0
	limit := max(1, len([]rune(s))/3)
	for _, k := range known {
		d := editDistance(strings.ToLower(s), strings.ToLower(k))
		if len(s) >= 3 && strings.HasPrefix(k, s) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, with a swap
// of two neighbours counted as one edit.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// Bytes writes a size for people: "4.9 GB", "274 MB", "12 KB", "512 B".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Count writes a number of things: "1 file", "3 files" (the noun takes a
// plain s).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
