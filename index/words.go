package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitIdent breaks an identifier into lower-case words at underscores,
// case changes and letter/digit boundaries: parseConfigFile and
// parse_config_file both give [parse config file], HTTPServer2 gives
// [http server 2].
func splitIdent(s string) []string {
	var words []string
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = r
			continue
		}
		if start < 0 {
			start = i
			prev = r
			continue
		}
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev):
			// The end of an acronym: HTTPServer splits before the S.
			pl := utf8.RuneLen(prev)
			flush(i - pl)
			start = i - pl
		}
		prev = r
	}
	flush(len(s))
	return words
}

// isIdentByte reports whether b may appear in an ASCII identifier.
func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// eachIdent calls fn for every ASCII identifier in text (a run of letters,
// digits and underscores that does not start with a digit).
func eachIdent(text string, fn func(string)) {
	for i := 0; i < len(text); {
		if !isIdentByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isIdentByte(text[j]) {
			j++
		}
		if text[i] < '0' || text[i] > '9' {
			fn(text[i:j])
		}
		i = j
	}
}

// compound reports whether the FTS tokenizer would keep ident as one token
// that splitIdent breaks apart: a case change or a letter/digit boundary.
// Underscores need no help, the tokenizer splits there already.
func compound(ident string) bool {
	for i := 1; i < len(ident); i++ {
		a, b := ident[i-1], ident[i]
		lowerUpper := a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z'
		acronym := i+1 < len(ident) && a >= 'A' && a <= 'Z' && b >= 'A' && b <= 'Z' && ident[i+1] >= 'a' && ident[i+1] <= 'z'
		digit := (a >= '0' && a <= '9') != (b >= '0' && b <= '9') && a != '_' && b != '_'
		if lowerUpper || acronym || digit {
			return true
		}
	}
	return false
}

// splitWords returns the words column of a chunk: the parts of every
// distinct compound identifier in text, so that "parse config" finds
// parseConfigFile. seen is scratch space, cleared before use.
func splitWords(text string, seen map[string]struct{}) string {
	return splitWordsCached(text, seen, nil)
}

// splitWordsCached is splitWords with a cache of each identifier's entry,
// filled as it goes when not nil.
func splitWordsCached(text string, seen map[string]struct{}, cache map[string]string) string {
	clear(seen)
	var b strings.Builder
	eachIdent(text, func(id string) {
		if len(id) < 3 || !compound(id) {
			return
		}
		if _, ok := seen[id]; ok {
			return
		}
		seen[id] = struct{}{}
		if w, ok := cache[id]; ok {
			b.WriteString(w)
			return
		}
		start := b.Len()
		for _, w := range splitIdent(id) {
			b.WriteString(w)
			b.WriteByte(' ')
		}
		b.WriteString("; ")
		if cache != nil {
			// Copies: slices would keep the whole chunk and column alive.
			cache[strings.Clone(id)] = strings.Clone(b.String()[start:])
		}
	})
	return b.String()
}

// nameWords is what the name and path columns hold: the text itself and
// the words of its compound identifiers.
func nameWords(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(s)
	eachIdent(s, func(id string) {
		if compound(id) {
			b.WriteByte(' ')
			b.WriteString(strings.Join(splitIdent(id), " "))
		}
	})
	return b.String()
}

// stopwords are dropped from queries that have other words: they match
// almost every chunk and only slow the ranking down.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "by": true, "can": true, "do": true, "does": true, "for": true,
	"from": true, "how": true, "i": true, "if": true, "in": true, "is": true,
	"it": true, "of": true, "on": true, "or": true, "that": true, "the": true,
	"this": true, "to": true, "what": true, "when": true, "where": true,
	"which": true, "who": true, "why": true, "with": true, "we": true,
	"code": true, "function": true, "find": true, "show": true, "me": true,
	"there": true,
}

// queryWords extracts the words of a search query: runs of letters, digits
// and underscores, without stopwords and single letters unless nothing
// else is left.
func queryWords(query string) []string {
	fields := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	var kept []string
	seen := map[string]bool{}
	for _, f := range fields {
		l := strings.ToLower(f)
		if stopwords[l] || seen[l] || len(l) == 1 {
			continue
		}
		seen[l] = true
		kept = append(kept, f)
	}
	if len(kept) == 0 {
		for _, f := range fields {
			if !seen[strings.ToLower(f)] {
				seen[strings.ToLower(f)] = true
				kept = append(kept, f)
			}
		}
	}
	return kept
}

// ftsTerm is the FTS5 expression for one query word. A compound identifier
// matches either as the whole token or as the phrase of its parts. Words
// contain only letters, digits and underscores, so quoting is safe.
func ftsTerm(word string) string {
	whole := `"` + strings.ReplaceAll(word, `"`, `""`) + `"`
	parts := splitIdent(word)
	if len(parts) < 2 || strings.Contains(word, "_") && !compound(word) {
		return whole
	}
	return "(" + whole + ` OR "` + strings.Join(parts, " ") + `")`
}

// QueryTerms returns the words of query as a search sees them, for callers
// that highlight or boost matches.
func QueryTerms(query string) []string {
	var out []string
	for _, w := range queryWords(query) {
		out = append(out, splitIdent(w)...)
		if len(splitIdent(w)) > 1 {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

// eachWordPart calls fn with each word of text, split as identifiers are:
// runs of ASCII letters and digits, broken at case changes (parseURL
// gives parse and URL); parts of one byte are left out. The part is
// valid only during the call.
func eachWordPart(text []byte, fn func([]byte)) {
	emit := func(p []byte) {
		if len(p) > 1 {
			fn(p)
		}
	}
	i := 0
	for i < len(text) {
		c := text[i]
		if !isAlnum(c) {
			i++
			continue
		}
		j := i
		for j < len(text) && isAlnum(text[j]) {
			j++
		}
		word := text[i:j]
		start := 0
		for k := 1; k < len(word); k++ {
			a, b := word[k-1], word[k]
			lowerUpper := isLower(a) && isUpper(b)
			acronym := isUpper(a) && isUpper(b) && k+1 < len(word) && isLower(word[k+1])
			if lowerUpper || acronym {
				emit(word[start:k])
				start = k
			}
		}
		emit(word[start:])
		i = j
	}
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isLower(c) || isUpper(c) || isDigit(c) }

// queryPairs returns up to limit pairs of adjacent query words, neither
// a stopword nor a single letter, as lower-case phrases: "fix the
// reference cycle" gives "reference cycle" (the stands between fix and
// reference), "no-modifiers" gives "no modifiers".
func queryPairs(query string, limit int) []string {
	fields := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	var out []string
	seen := map[string]bool{}
	for i := 1; i < len(fields); i++ {
		a, b := strings.ToLower(fields[i-1]), strings.ToLower(fields[i])
		if stopwords[a] || stopwords[b] || len(a) < 2 || len(b) < 2 {
			continue
		}
		p := a + " " + b
		if !seen[p] && len(out) < limit {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
