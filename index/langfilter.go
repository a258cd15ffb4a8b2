package index

import (
	"context"
	"strings"
)

// LangCount is a language of the indexed files, and how many it has.
type LangCount struct {
	Lang  string
	Files int
}

// Languages lists the languages of the indexed files, the most files
// first: what a search's language filter may name.
func (ix *Index) Languages(ctx context.Context) ([]LangCount, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT lang, count(*) FROM files WHERE skip = '' GROUP BY lang ORDER BY 2 DESC, 1`)
	if err != nil {
		return nil, ix.fail("index languages", err)
	}
	defer rows.Close()
	var out []LangCount
	for rows.Next() {
		var l LangCount
		if err := rows.Scan(&l.Lang, &l.Files); err != nil {
			return nil, ix.fail("index languages", err)
		}
		out = append(out, l)
	}
	return out, ix.fail("index languages", rows.Err())
}

// LangOf is the language the index records for a language filter's
// word: an extension names its language ("py": python, "ts":
// typescript), else the word names itself.
func LangOf(word string) string {
	word = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(word), "."))
	if word == "" {
		return ""
	}
	if l := detectLang("x."+word, nil); l != "text" {
		return l
	}
	return word
}
