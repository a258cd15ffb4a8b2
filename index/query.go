package index

import (
	"slices"
	"strings"
	"unicode"
)

// query is what ranking reads from the query text besides its words.
type query struct {
	intent intent
	// idents are the lower-case names the query writes as identifiers;
	// weak ones are capitalised words within a sentence.
	idents map[string]float64
	// words is the set of the query's lower-case words and their parts.
	words map[string]bool
	// types are the lower-case names the query writes in backticks with
	// a capital first letter: `Ignore`, `Parameter`, most often a type
	// or class the query is about.
	types map[string]bool
}

// analyse reads the identifiers and the intent of a query.
func analyse(raw string, words []string) query {
	q := query{intent: queryIntent(words), idents: map[string]float64{}, words: map[string]bool{}, types: map[string]bool{}}
	for _, w := range QueryTerms(raw) {
		q.words[w] = true
	}
	// Backticked spans name identifiers.
	for rest := raw; ; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			break
		}
		eachIdent(rest[i+1:i+1+j], func(id string) {
			q.idents[strings.ToLower(id)] = 1
			if unicode.IsUpper(rune(id[0])) {
				q.types[strings.ToLower(id)] = true
			}
		})
		rest = rest[i+2+j:]
	}
	if len(words) == 1 {
		// A query of one word names something.
		eachIdent(words[0], func(id string) { q.idents[strings.ToLower(id)] = 1 })
	}
	first := true
	for _, tok := range strings.Fields(raw) {
		tok = strings.Trim(tok, "\"'`,;:!?()[]{}<>")
		tok = strings.TrimSuffix(tok, "()")
		if tok == "" {
			continue
		}
		dotted := strings.ContainsAny(tok, ".#") || strings.Contains(tok, "::")
		eachIdent(tok, func(id string) {
			lower := strings.ToLower(id)
			switch {
			case dotted, strings.Contains(strings.Trim(id, "_"), "_"), compound(id):
				q.idents[lower] = 1
			case !first && len(id) >= 3 && unicode.IsUpper(rune(id[0])) && strings.ToLower(id[1:]) == id[1:]:
				if _, ok := q.idents[lower]; !ok {
					q.idents[lower] = 0.5 // a capitalised word inside a sentence
				}
			}
		})
		first = strings.HasSuffix(tok, ".") && !dotted
	}
	return q
}

// symbolBoost is the share by which a chunk's text score grows because the
// query names its symbol: fully when the query writes the name as an
// identifier, half when it has every word of a multi-word name; scaled by
// how rare the name is. Markdown headings and plain code get none.
func (q query) symbolBoost(c Chunk, terms []term, cs *corpus) float64 {
	if c.Symbol == "" || c.Kind == "section" || c.Kind == "code" || c.Kind == "text" || proseLangs[c.Lang] {
		return 0
	}
	name := strings.ToLower(lastName(c.Symbol))
	if name == "" {
		return 0
	}
	weight := q.idents[name]
	if weight == 0 {
		// The words of the name, or of the qualified name: "cart
		// total" names Cart.Total.
		parts := splitIdent(lastName(c.Symbol))
		if len(parts) < 2 {
			parts = splitIdent(c.Symbol)
		}
		if len(parts) < 2 {
			return 0
		}
		for _, p := range parts {
			if !q.words[p] {
				return 0
			}
		}
		weight = 0.5
	}
	// Rarity: the best idf of the query words in the name, against the
	// idf of a word only one chunk has.
	rarity := 0.0
	for _, t := range terms {
		if w := strings.ToLower(t.word); w == name || slices.Contains(splitIdent(c.Symbol), w) {
			rarity = max(rarity, t.idf)
		}
	}
	top := idf(cs.chunks, 1)
	if top <= 0 {
		return 0
	}
	return symbolShare * weight * min(1, rarity/top)
}

// lastName is the innermost name of a qualified symbol: Server.ServeHTTP
// gives ServeHTTP, Matrix::at gives at, "DefaultPort, …" gives DefaultPort.
func lastName(symbol string) string {
	symbol, _, _ = strings.Cut(symbol, ",")
	if i := strings.LastIndexAny(symbol, ".:#"); i >= 0 {
		symbol = symbol[i+1:]
	}
	return strings.TrimSpace(symbol)
}
