package tools

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// prefilter is a cheap test a file must pass before the regexp runs over
// it: a literal every match contains. Go's regexp is fast only when a
// pattern starts with a literal; without one (\w+Handler, or any pattern
// under ignore_case) it runs an automaton over every byte, some twenty
// times slower than a substring search. Most files hold no match, so
// ruling them out by substring keeps grep fast.
type prefilter struct {
	lit  []byte // empty: every file passes
	fold bool   // lit is lower-case ASCII, to match in any case
	// oddFold is set when lit holds a k or an s, which also match the
	// Kelvin sign (U+212A) and the long s (U+017F) under case folding.
	oddFold bool
}

// minPrefilter is the shortest literal worth a prefilter.
const minPrefilter = 3

// newPrefilter finds the longest literal that every match of expr must
// contain. It gives up (an empty prefilter) whenever it is unsure.
func newPrefilter(expr string) prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return prefilter{}
	}
	lit, fold := requiredLiteral(re.Simplify())
	if len(lit) < minPrefilter {
		return prefilter{}
	}
	if !fold {
		return prefilter{lit: []byte(lit)}
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] >= utf8.RuneSelf {
			return prefilter{} // Unicode folding is more than ASCII lower-casing
		}
	}
	lower := strings.ToLower(lit)
	return prefilter{lit: []byte(lower), fold: true, oddFold: strings.ContainsAny(lower, "ks")}
}

// requiredLiteral returns the longest literal that every match of re
// contains, and whether it matches case-insensitively.
func requiredLiteral(re *syntax.Regexp) (lit string, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if l, f := requiredLiteral(sub); len(l) > len(lit) {
				lit, fold = l, f
			}
		}
	}
	return lit, fold
}

// pass reports whether data may hold a match.
func (p prefilter) pass(data []byte) bool {
	switch {
	case len(p.lit) == 0:
		return true
	case !p.fold:
		return bytes.Contains(data, p.lit)
	case containsFoldASCII(data, p.lit):
		return true
	}
	return p.oddFold && (bytes.Contains(data, []byte("\u212A")) || bytes.Contains(data, []byte("\u017F")))
}

// containsFoldASCII reports whether data contains lit, a lower-case ASCII
// string, in any mix of upper and lower case. It finds candidates for the
// rarest byte of lit in either case with the vectorised bytes.IndexByte, so
// it runs at close to the speed of a plain substring search.
func containsFoldASCII(data, lit []byte) bool {
	k := rarest(lit)
	lo, up := lit[k], lit[k]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	end := len(data) - len(lit) + k + 1 // candidates for lit[k] lie in data[k:end]
	next := func(c byte, from int) int {
		if from >= end {
			return -1
		}
		if i := bytes.IndexByte(data[from:end], c); i >= 0 {
			return from + i
		}
		return -1
	}
	nextLo, nextUp := next(lo, k), -1
	if up != lo {
		nextUp = next(up, k)
	}
	for nextLo >= 0 || nextUp >= 0 {
		i := nextLo
		if i < 0 || nextUp >= 0 && nextUp < i {
			i = nextUp
		}
		if equalFoldASCII(data[i-k:i-k+len(lit)], lit) {
			return true
		}
		if i == nextLo {
			nextLo = next(lo, i+1)
		} else {
			nextUp = next(up, i+1)
		}
	}
	return false
}

// rarest returns the index of the byte of lit least likely to occur in
// text, by English letter frequency; any byte but a letter or a space is
// rarer than every letter.
func rarest(lit []byte) int {
	const common = " etaoinshrdlucmfwypvbgkjqxz" // most to least frequent
	best, bestRank := 0, -1
	for i, c := range lit {
		rank := len(common)
		if j := strings.IndexByte(common, c); j >= 0 {
			rank = j
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// equalFoldASCII reports whether s equals lower, a lower-case ASCII
// string, ignoring the case of ASCII letters in s.
func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
