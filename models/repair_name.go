package models

import (
	"strings"
	"unicode"
)

// namePrefixes are namespaces models put before a tool's name.
var namePrefixes = []string{"functions.", "function.", "tools.", "tool.", "default_api.", "repo_browser.", "api."}

// ResolveToolName matches the name a model called to one of known: exactly;
// else ignoring case, a namespace such as "functions.", camelCase, dashes,
// dots or spaces for underscores, and "()"; else the one known name within
// a small edit distance ("read_flie", "grepp"). It returns "" when no name
// matches, or when two match equally well.
func ResolveToolName(name string, known []string) string {
	for _, k := range known {
		if k == name {
			return k
		}
	}
	norm := normalizeName(name)
	if norm == "" {
		return ""
	}
	for _, k := range known {
		if normalizeName(k) == norm {
			return k
		}
	}
	// Without separators: "readfile", "ReadFile".
	squash := strings.ReplaceAll(norm, "_", "")
	for _, k := range known {
		if strings.ReplaceAll(normalizeName(k), "_", "") == squash {
			return k
		}
	}
	best, bestDist, tie := "", 0, false
	for _, k := range known {
		kn := normalizeName(k)
		limit := min(2, len(kn)/4)
		d := levenshtein(norm, kn)
		if d > limit {
			continue
		}
		switch {
		case best == "" || d < bestDist:
			best, bestDist, tie = k, d, false
		case d == bestDist:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// normalizeName lower-cases a tool name, drops a namespace and call
// parentheses, and writes camelCase, dashes, dots and spaces as underscores.
func normalizeName(name string) string {
	name = strings.TrimSpace(name)
	name = strings.Trim(name, "`'\"")
	name = strings.TrimSuffix(name, "()")
	name = strings.TrimSuffix(name, ".call") // Llama 3.1's brave_search.call(…)
	lower := strings.ToLower(name)
	for _, p := range namePrefixes {
		if strings.HasPrefix(lower, p) {
			name, lower = name[len(p):], lower[len(p):]
			break
		}
	}
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '-' || r == '.' || r == ' ' || r == '_':
			b.WriteByte('_')
			prevLower = false
			continue
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
			continue
		}
		b.WriteRune(r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return strings.Trim(b.String(), "_")
}

// levenshtein is the edit distance between a and b (insertions, deletions
// and substitutions of bytes). Tool names are short ASCII, so the simple
// two-row form is plenty.
func levenshtein(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
