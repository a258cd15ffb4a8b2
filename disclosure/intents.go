package disclosure

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

//go:embed intents.txt
var intentsData string

// Hit is a word of a prompt that asks for a tier.
type Hit struct {
	Tier Tier
	// Word is the keyword as the prompt wrote it ("fixing").
	Word string
}

// Intents reads a request for what it asks to do. Its word lists are data:
// intents.txt, embedded, with the user's overrides.
type Intents struct {
	// entries are the keywords of each tier as written ("look_up", "@url").
	entries [NumTiers][]string
	// words maps each form of a keyword's first word to its keywords.
	words map[string][]keyword
	// single-word lists
	negation, lead, question, auxiliary map[string]bool
	// requests are the phrases that make a question a request.
	requests [][]string
}

// keyword is one entry, ready to match.
type keyword struct {
	tier     Tier
	base     string   // the first word as listed, uninflected
	rest     []string // the words after the first, for a phrase
	anywhere bool
}

// sections maps intents.txt's section names to tiers.
var sectionTiers = map[string]Tier{"edit": Edit, "commands": Commands, "external": External}

// DefaultIntents returns the built-in word lists of intents.txt.
func DefaultIntents() (*Intents, error) {
	in, err := ParseIntents(intentsData)
	if err != nil {
		return nil, fmt.Errorf("built-in %w", err)
	}
	return in, nil
}

// ParseIntents reads word lists in the format of intents.txt.
func ParseIntents(text string) (*Intents, error) {
	in := &Intents{}
	lists := map[string][]string{}
	section := ""
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
		case section == "":
			return nil, fmt.Errorf("intents line %d: words before the first [section]", i+1)
		default:
			lists[section] = append(lists[section], strings.Fields(strings.ToLower(line))...)
		}
	}
	for name, t := range sectionTiers {
		in.entries[t] = lists[name]
	}
	in.negation, in.lead = set(lists["negation"]), set(lists["lead"])
	in.question, in.auxiliary = set(lists["question"]), set(lists["auxiliary"])
	for _, r := range lists["request"] {
		in.requests = append(in.requests, strings.Split(r, "_"))
	}
	for name := range lists {
		if _, ok := sectionTiers[name]; !ok && !slices.Contains([]string{"negation", "lead", "question", "auxiliary", "request"}, name) {
			return nil, fmt.Errorf("intents: unknown section [%s]", name)
		}
	}
	in.build()
	return in, nil
}

func set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[strings.ReplaceAll(w, "_", " ")] = true
	}
	return m
}

// Overrides are the user's changes to the word lists: each word is added to
// its list, or, written with a leading "-", removed from it.
type Overrides struct {
	// Words that unlock tier 1 (edit): `"frobnicate"` adds a verb,
	// `"-add"` removes a built-in one, and `"@word"` counts the word
	// anywhere in the prompt, not only as a verb.
	Edit []string `toml:"edit"`
	// Words that unlock tier 2 (commands), written as for `edit`.
	Commands []string `toml:"commands"`
	// Words that unlock tier 3 (external), written as for `edit`.
	External []string `toml:"external"`
	// Words after which the rest of a clause unlocks nothing ("don't
	// change anything"), added to or removed from the built-in list as
	// for `edit`.
	Negation []string `toml:"negation"`
}

// With returns a copy of in with the overrides applied.
func (in *Intents) With(o Overrides) *Intents {
	out := &Intents{entries: in.entries, negation: maps.Clone(in.negation), lead: in.lead,
		question: in.question, auxiliary: in.auxiliary, requests: in.requests}
	for t, words := range map[Tier][]string{Edit: o.Edit, Commands: o.Commands, External: o.External} {
		list := slices.Clone(out.entries[t])
		for _, w := range words {
			w = strings.ToLower(strings.TrimSpace(w))
			if strings.HasPrefix(w, "-") {
				list = slices.DeleteFunc(list, func(e string) bool { return e == w[1:] || strings.TrimPrefix(e, "@") == w[1:] })
			} else if w != "" && !slices.Contains(list, w) {
				list = append(list, w)
			}
		}
		out.entries[t] = list
	}
	for _, w := range o.Negation {
		w = strings.ToLower(strings.TrimSpace(w))
		if strings.HasPrefix(w, "-") {
			delete(out.negation, w[1:])
		} else if w != "" {
			out.negation[w] = true
		}
	}
	out.build()
	return out
}

// build indexes the keywords by every form of their first word.
func (in *Intents) build() {
	in.words = map[string][]keyword{}
	for t, list := range in.entries {
		for _, e := range list {
			k := keyword{tier: Tier(t), anywhere: strings.HasPrefix(e, "@")}
			parts := strings.Split(strings.TrimPrefix(e, "@"), "_")
			k.base, k.rest = parts[0], parts[1:]
			for _, form := range inflections(parts[0]) {
				in.words[form] = append(in.words[form], k)
			}
		}
	}
}

// inflections returns w with its regular endings: fix fixes fixed fixing,
// write writes writing, run running, modify modifies modified.
func inflections(w string) []string {
	forms := []string{w, w + "s", w + "es", w + "ed", w + "ing"}
	n := len(w)
	if n < 2 {
		return forms
	}
	last := w[n-1]
	if last == 'e' {
		forms = append(forms, w+"d", w[:n-1]+"ing")
	}
	if last == 'y' && !isVowel(w[n-2]) {
		forms = append(forms, w[:n-1]+"ies", w[:n-1]+"ied")
	}
	if n >= 3 && !isVowel(last) && isVowel(w[n-2]) && !isVowel(w[n-3]) && !strings.ContainsRune("wxy", rune(last)) {
		forms = append(forms, w+string(last)+"ing", w+string(last)+"ed")
	}
	return forms
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// Detect returns the words of text that ask for a tier, in order.
func (in *Intents) Detect(text string) []Hit {
	var hits []Hit
	for _, sentence := range sentences(text) {
		if in.informational(sentence) {
			continue
		}
		for _, clause := range sentence.clauses {
			hits = append(hits, in.clauseHits(clause)...)
		}
	}
	return hits
}

// informational reports whether a sentence asks for information rather
// than for work: "how do I run the tests?", "is this file changed?", but
// not "can you run the tests?".
func (in *Intents) informational(s sentence) bool {
	words := s.words()
	if len(words) == 0 {
		return false
	}
	for _, r := range in.requests {
		if len(words) >= len(r) && slices.Equal(words[:len(r)], r) || len(r) == 1 && slices.Contains(words, r[0]) {
			return false
		}
	}
	return in.question[words[0]] || s.asks && in.auxiliary[words[0]]
}

// clauseHits finds the keywords of one clause that are not negated.
func (in *Intents) clauseHits(words []string) []Hit {
	var hits []Hit
	negated := false
	for i, w := range words {
		if in.negation[w] || i > 0 && in.negation[words[i-1]+" "+w] {
			negated = true
			continue
		}
		for _, k := range in.words[w] {
			if negated || !in.match(words, i, k) {
				continue
			}
			hits = append(hits, Hit{Tier: k.tier, Word: strings.Join(words[i:i+1+len(k.rest)], " ")})
		}
	}
	return hits
}

// match reports whether keyword k, whose first word is words[i], is there
// in full and in a place where it asks for something: anywhere for an "@"
// word; else right after a lead word ("please fix", "to be renamed"), or
// first in the clause in its plain form and not as the subject of a verb
// ("build the app", not "builds fail" or "build is broken").
func (in *Intents) match(words []string, i int, k keyword) bool {
	if i+len(k.rest) >= len(words) {
		return false
	}
	for j, r := range k.rest {
		if words[i+1+j] != r {
			return false
		}
	}
	if i >= 2 && words[i-2] == "how" && words[i-1] == "to" {
		return false // "explain how to run the tests"
	}
	switch {
	case k.anywhere:
		return true
	case i == 0:
		next := i + 1 + len(k.rest)
		return words[i] == k.base && (next == len(words) || !in.auxiliary[words[next]])
	}
	return in.lead[words[i-1]] || in.negation[words[i-1]]
}

// sentence is one sentence of a prompt, cut into clauses of words.
type sentence struct {
	clauses [][]string
	asks    bool // it ends with a question mark
}

func (s sentence) words() []string { return slices.Concat(s.clauses...) }

// clauseBreaks are the words that start a new clause.
var clauseBreaks = map[string]bool{"but": true, "instead": true, "except": true, "although": true, "though": true}

// sentences splits text into sentences at . ! ? and line ends, and those
// into clauses at , ; : ( ) and words such as "but". Words are lower-cased;
// "main.go", "run_command" and "--yes" stay single words, which no keyword
// matches.
func sentences(text string) []sentence {
	var out []sentence
	cur := sentence{}
	var clause []string
	var word strings.Builder
	endWord := func() {
		if word.Len() == 0 {
			return
		}
		w := strings.Trim(word.String(), "'.-/:")
		word.Reset()
		if w == "" {
			return
		}
		if clauseBreaks[w] {
			if len(clause) > 0 {
				cur.clauses = append(cur.clauses, clause)
				clause = nil
			}
			return
		}
		clause = append(clause, w)
	}
	endClause := func() {
		endWord()
		if len(clause) > 0 {
			cur.clauses = append(cur.clauses, clause)
			clause = nil
		}
	}
	endSentence := func(asks bool) {
		endClause()
		if len(cur.clauses) > 0 {
			cur.asks = asks
			out = append(out, cur)
		}
		cur = sentence{}
	}
	runes := []rune(strings.ToLower(text))
	for i, r := range runes {
		next := ' '
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		switch {
		case r == '’' || r == '‘':
			word.WriteRune('\'')
		case r == '?':
			endSentence(true)
		case r == '!' || r == '\n' || r == '.' && unicode.IsSpace(next):
			endSentence(false)
		case strings.ContainsRune(",;:()[]{}\"`", r) && (r != ':' || unicode.IsSpace(next)):
			endClause()
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("'_./:-", r):
			word.WriteRune(r)
		default:
			endWord()
		}
	}
	endSentence(false)
	return out
}
