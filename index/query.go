package index

import (
	"maps"
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
	// verbOfUse is set when the query says to use, call, replace or
	// rename something: the users of the names it names are wanted too.
	verbOfUse bool
	// uses are the names the query writes as identifiers, lower-case,
	// each with its qualifiers: [refactor deletestmt] for
	// refactor.DeleteStmt, [env] for `env`. A chunk that holds every
	// identifier of one uses the name.
	uses [][]string
	// calls are the lower-case names the query writes called, name():
	// functions or methods, not the types of the same name.
	calls map[string]bool
}

// useVerbs are the verbs (and "instead") of a change made where a name is
// used, not only where it is defined: "use refactor.DeleteStmt", "replace
// atty with IsTerminal", "rename Foo". Their forms in -s, -d, -ed and -ing
// count too.
var useVerbs = map[string]bool{"use": true, "call": true, "replace": true, "instead": true, "switch": true,
	"migrate": true, "adopt": true, "prefer": true, "avoid": true, "export": true, "import": true,
	"pass": true, "wrap": true, "rename": true, "remove": true, "move": true, "inline": true, "deprecate": true}

// useVerb reports whether the lower-case word w is a form of a use verb.
func useVerb(w string) bool {
	if useVerbs[w] {
		return true
	}
	for _, suffix := range []string{"s", "es", "d", "ed", "ing"} {
		if stem, ok := strings.CutSuffix(w, suffix); ok && len(stem) > 1 && (useVerbs[stem] || useVerbs[stem+"e"]) {
			return true
		}
	}
	return false
}

// analyse reads the identifiers and the intent of a query.
func analyse(raw string, words []string) query {
	q := query{intent: queryIntent(words), idents: map[string]float64{}, words: map[string]bool{}, types: map[string]bool{},
		calls: map[string]bool{}}
	for _, w := range QueryTerms(raw) {
		q.words[w] = true
	}
	for _, w := range words {
		q.verbOfUse = q.verbOfUse || useVerb(strings.ToLower(w))
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
		called := strings.HasSuffix(strings.TrimRight(tok, "\"'`,;:!?.]}>"), "()")
		tok = strings.Trim(tok, "\"'`,;:!?()[]{}<>")
		if tok == "" {
			continue
		}
		if called {
			var name string
			eachIdent(tok, func(id string) { name = strings.ToLower(id) })
			q.calls[name] = true
		}
		dotted := strings.ContainsAny(tok, ".#") || strings.Contains(tok, "::")
		if dotted {
			name, _, _ := strings.Cut(tok, "(")
			var group []string
			eachIdent(name, func(id string) { group = append(group, strings.ToLower(id)) })
			if len(group) > 1 {
				q.uses = append(q.uses, group)
			}
		}
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
	// The other identifiers are names of their own.
	inGroup := map[string]bool{}
	for _, g := range q.uses {
		for _, id := range g {
			inGroup[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(q.idents)) {
		if q.idents[id] == 1 && !inGroup[id] {
			q.uses = append(q.uses, []string{id})
		}
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
	if name == "" || q.calls[name] && uncallable[c.Kind] {
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

// users finds the chunks that use the names a query with a verb of use
// writes as identifiers: a chunk's text score grows as much as the
// name's definition's does, so that callers rank beside it. A chunk uses
// a name when it holds it whole (DeleteStmts does not use DeleteStmt)
// with its qualifiers (refactor.DeleteStmt, Object.create).
type users struct {
	groups [][]string
	boosts []float64 // each group's: its name's rarity, as symbolBoost's
	want   map[string]bool
	lens   [maxIdent + 1]bool // the lengths of the identifiers wanted
}

// maxIdent is the longest identifier users looks for.
const maxIdent = 64

// users returns the finder of the chunks that use the query's names, or
// nil when the query has no verb of use or no name to use.
func (q query) users(terms []term, cs *corpus) *users {
	top := idf(cs.chunks, 1)
	if !q.verbOfUse || top <= 0 {
		return nil
	}
	u := &users{want: map[string]bool{}}
	for _, g := range q.uses {
		name := g[len(g)-1]
		var boost float64
		for _, t := range terms {
			if !t.phrase && !t.common && strings.ToLower(t.word) == name {
				boost = max(boost, symbolShare*min(1, t.idf/top))
			}
		}
		if boost == 0 {
			continue
		}
		for _, id := range g {
			if len(id) > maxIdent {
				boost = 0
			}
		}
		if boost == 0 {
			continue
		}
		u.groups, u.boosts = append(u.groups, g), append(u.boosts, boost)
		for _, id := range g {
			u.want[id], u.lens[len(id)] = true, true
		}
	}
	if len(u.groups) == 0 {
		return nil
	}
	return u
}

// boost returns the share by which the text score of a chunk of text
// grows as a user of the names.
func (u *users) boost(text string) float64 {
	var buf [maxIdent]byte
	found := map[string]bool{}
	eachIdent(text, func(id string) {
		if len(id) > maxIdent || !u.lens[len(id)] {
			return
		}
		lower := buf[:len(id)]
		for i := range len(id) {
			lower[i] = id[i]
			if isUpper(id[i]) {
				lower[i] += 'a' - 'A'
			}
		}
		if u.want[string(lower)] {
			found[string(lower)] = true
		}
	})
	var boost float64
	for i, g := range u.groups {
		held := true
		for _, id := range g {
			held = held && found[id]
		}
		if held {
			boost = max(boost, u.boosts[i])
		}
	}
	return boost
}

// uncallable are the kinds of declaration that a name written called,
// name(), does not mean: types, constants and modules. A class may be
// called to construct one.
var uncallable = map[string]bool{"type": true, "interface": true, "struct": true, "enum": true, "trait": true,
	"impl": true, "module": true, "namespace": true, "const": true, "var": true, "let": true}

// lastName is the innermost name of a qualified symbol: Server.ServeHTTP
// gives ServeHTTP, Matrix::at gives at, "DefaultPort, …" gives DefaultPort.
func lastName(symbol string) string {
	symbol, _, _ = strings.Cut(symbol, ",")
	if i := strings.LastIndexAny(symbol, ".:#"); i >= 0 {
		symbol = symbol[i+1:]
	}
	return strings.TrimSpace(symbol)
}
