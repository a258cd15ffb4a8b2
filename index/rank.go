package index

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
)

// Ranking. A search scores files as well as chunks: a file's score fuses a
// whole-file BM25 over its chunks (so a file whose functions each hold a
// different query word counts) with the BM25 of its best chunk, scaled by
// its class (code before tests, docs, changelogs and fixtures unless the
// query asks for them) and its language (the repository's minor languages
// lower). A chunk's score is its file's, shared out by how it compares
// with the file's best chunk. A symbol the query names as an identifier
// raises its chunk's text score by a bounded share, more for rare names,
// and so do the chunks that use the name when the query says to use,
// call or replace it.

const (
	// candidates is how many chunks the full-text search ranks for the
	// file scores; files come from these.
	candidates = 600
	// k1 and b are the BM25 constants of the whole-file score. b is low:
	// term frequencies count chunks, which grow slower than the file, and
	// large files are where changes land more often.
	k1, b = 1.2, 0.1
	// rankRows is how many chunks may match a word that the full-text
	// search ranks in every column.
	rankRows = 1000
	// extraFiles is how many files without a candidate chunk may rank by
	// their whole text.
	extraFiles = 60
	// fileShare is the weight of the whole-file score against the best
	// chunk's in a file's score.
	fileShare = 0.5
	// minorLang is the weight of code in a language with little code
	// against the main language's, rising to 1 at minorShare of its
	// bytes (see langs.go): scripts, completions and build helpers around
	// the main code, even when there is a third as much of them, are
	// seldom what a search is for.
	minorLang, minorShare = 0.6, 0.5
	// tfFiles is how many of the best files are reranked by the true
	// frequencies of up to tfWords query words, with a share of tfShare
	// in their score; tfK1 and tfB are that BM25's constants, over file
	// sizes in bytes.
	tfFiles   = 20
	tfWords   = 8
	tfShare   = 0.2
	tfK1, tfB = 1.2, 0.3
	// phraseShare is the weight in the whole-file score of a pair of
	// adjacent query words found as a phrase, against a word's.
	phraseShare = 0.5
	// maxPairs bounds the phrases a long query is searched for.
	maxPairs = 12
	// symbolShare bounds the symbol boost as a share of the text score:
	// at most it doubles it.
	symbolShare = 1
)

// term is one query word with the chunks that hold it.
type term struct {
	word, expr string
	// ids are the chunks matching the word anywhere (or, for a common
	// word, in a symbol name or path only).
	ids    []int64
	common bool
	// phrase is set for two adjacent query words searched together.
	phrase bool
	// idf is the word's inverse document frequency among chunks;
	// fileIDF among files.
	idf, fileIDF float64
}

// Lexical returns up to n chunks matching query, best first, with their
// Score: full-text search over symbol names, paths, text and the words of
// split identifiers, ranked by file and chunk (see the comment above).
// Any text is a valid query.
func (ix *Index) Lexical(ctx context.Context, query string, f Filter, n int) ([]Chunk, error) {
	words := queryWords(query)
	if len(words) == 0 || n <= 0 {
		return nil, nil
	}
	q := analyse(query, words)
	// The parts of an identifier count as words too: "serde_derive"
	// finds a file that says serde and derive apart.
	seen := map[string]bool{}
	for _, w := range words {
		seen[strings.ToLower(w)] = true
	}
	for _, w := range slices.Clone(words) {
		if parts := splitIdent(w); len(parts) > 1 {
			for _, p := range parts {
				if len(p) > 2 && !seen[p] && !stopwords[p] {
					seen[p] = true
					words = append(words, p)
				}
			}
		}
	}
	if len(words) > 32 {
		words = words[:32]
	}
	f = f.Clean()
	cs, err := ix.corpus(ctx)
	if err != nil {
		return nil, err
	}
	terms := make([]term, len(words))
	var rare, all, common []string
	for i, w := range words {
		t := &terms[i]
		t.word, t.expr = w, ftsTerm(w)
		if t.ids, err = ix.rowids(ctx, t.expr, commonRows); err != nil {
			return nil, err
		}
		t.common = len(t.ids) >= commonRows
		t.idf = idf(cs.chunks, len(t.ids))
		t.fileIDF = idf(cs.files, cs.fileCount(t.ids))
		all = append(all, t.expr)
		switch {
		case t.common:
			common = append(common, t.expr)
		case len(t.ids) < rankRows:
			rare = append(rare, t.expr)
		}
	}
	// Two query words that stand side by side are searched as a phrase
	// too ("reference cycle", "no-modifiers"), for the whole-file score:
	// a file that says them together is more likely about them.
	for _, pr := range queryPairs(query, maxPairs) {
		t := term{word: pr, expr: `"` + pr + `"`, phrase: true}
		if t.ids, err = ix.rowids(ctx, t.expr, rankRows); err != nil {
			return nil, err
		}
		if len(t.ids) == 0 || len(t.ids) >= rankRows {
			continue // absent, or too common to tell files apart
		}
		t.idf = idf(cs.chunks, len(t.ids))
		t.fileIDF = idf(cs.files, cs.fileCount(t.ids))
		terms = append(terms, t)
	}
	// Ranking costs microseconds per matching chunk, so the full-text
	// search ranks the chunks holding a rare word, or every word (cheap
	// to find: the rarest word leads). With no rare word at all, names
	// and paths are searched for the common words.
	var expr string
	switch {
	case len(rare) > 0 && len(all) > 1:
		expr = strings.Join(rare, " OR ") + " OR (" + strings.Join(all, " AND ") + ")"
	case len(rare) > 0:
		expr = rare[0]
	case len(common) < len(all):
		expr = strings.Join(all, " AND ")
	default:
		expr = "{name path} : (" + strings.Join(all, " OR ") + ")"
		for i := range terms {
			// Words most chunks have count among names and paths.
			if terms[i].ids, err = ix.rowids(ctx, "{name path} : "+terms[i].expr, commonRows); err != nil {
				return nil, err
			}
		}
	}
	if len(rare) > 0 || len(common) < len(all) {
		for i := range terms {
			if terms[i].common {
				terms[i].ids = nil // too common to tell files apart
			}
		}
	}
	if len(rare) > 0 || len(common) < len(all) {
		// A type the query names in backticks is a candidate by its
		// declaration, which may hold no other word of the query (a
		// common name such as Ignore is not among the rare words).
		var names []string
		for _, t := range terms {
			if !t.phrase && q.types[strings.ToLower(t.word)] {
				names = append(names, t.expr)
			}
		}
		if len(names) > 0 {
			expr += " OR {name} : (" + strings.Join(names, " OR ") + ")"
		}
	}
	cands, err := ix.candidates(ctx, expr, f, max(candidates, n))
	if err != nil {
		return nil, err
	}
	return ix.rank(ctx, q, f, terms, cands, cs, n)
}

// boosts returns the share by which each candidate's text score grows
// because the query names its symbol (symbolBoost) or, with a verb of use,
// a name it uses (see users). A name defined in n files (an interface, its
// implementations, a mock; a function in each of six adapters) gives each
// definition 1/√n of the boost: the copies share the place of one
// definition rather than push its users and other files out.
func (q query) boosts(cands []cand, terms []term, cs *corpus) []float64 {
	out := make([]float64, len(cands))
	defs := map[string]map[int64]bool{} // the files defining each name
	for i, c := range cands {
		if out[i] = q.symbolBoost(c.Chunk, terms, cs); out[i] > 0 {
			name := strings.ToLower(lastName(c.Symbol))
			if defs[name] == nil {
				defs[name] = map[int64]bool{}
			}
			defs[name][c.fileID] = true
		}
	}
	u := q.users(terms, cs)
	for i, c := range cands {
		switch {
		case out[i] > 0:
			out[i] /= math.Sqrt(float64(len(defs[strings.ToLower(lastName(c.Symbol))])))
		case u != nil:
			out[i] = u.boost(c.Text)
		}
	}
	return out
}

// rowids returns the chunks matching an FTS5 expression, at most limit.
func (ix *Index) rowids(ctx context.Context, expr string, limit int) ([]int64, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?`, expr, limit)
	if err != nil {
		return nil, ix.fail("search index", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, ix.fail("search index", err)
		}
		out = append(out, id)
	}
	return out, ix.fail("search index", rows.Err())
}

// cand is a chunk the full-text search found, with what ranking needs.
type cand struct {
	Chunk
	fileID int64
	size   int64
	text   float64 // BM25 of the chunk, higher is better
}

// candidates returns the best limit chunks for an FTS5 expression.
func (ix *Index) candidates(ctx context.Context, expr string, f Filter, limit int) ([]cand, error) {
	cond, args := f.where()
	q := `SELECT ` + chunkColumns + `, f.id, f.size, chunks_fts.rank AS r FROM chunks_fts
		JOIN chunks c ON c.id = chunks_fts.rowid
		JOIN files f ON f.id = c.file_id
		WHERE chunks_fts MATCH ?` + cond + ` ORDER BY r LIMIT ?`
	args = append([]any{expr}, args...)
	args = append(args, limit)
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ix.fail("search index", err)
	}
	defer rows.Close()
	var out []cand
	for rows.Next() {
		var c cand
		var rank float64
		err := rows.Scan(&c.ID, &c.Path, &c.Lang, &c.StartLine, &c.EndLine, &c.Kind, &c.Symbol, &c.Sig, &c.Text,
			&c.fileID, &c.size, &rank)
		if err != nil {
			return nil, ix.fail("search index", err)
		}
		c.text = -rank
		out = append(out, c)
	}
	return out, ix.fail("search index", rows.Err())
}

// fileRank is the ranking state of one candidate file.
type fileRank struct {
	id     int64
	path   string
	class  string
	lang   string
	counts []int   // chunks of the file holding each term
	best   float64 // best chunk text score
	whole  float64 // whole-file BM25
	// base is the score before the class weight and the term
	// frequencies, tf the true-frequency BM25 of a reranked file.
	base, weight, tf float64
	score            float64
	seen             bool // a candidate chunk comes from the file
	// rep is the chunk holding the rarest query words, repCover their idf.
	rep      int64
	repCover float64
}

func (ix *Index) rank(ctx context.Context, q query, f Filter, terms []term, cands []cand, cs *corpus, n int) ([]Chunk, error) {
	// Whole-file BM25 over every file holding a query word, counting the
	// chunks that hold it; and the chunk of each file that holds the
	// rarest words, to stand for files no candidate comes from.
	files := map[int64]*fileRank{}
	cover := map[int64]float64{}
	for ti, t := range terms {
		for _, id := range t.ids {
			fid := cs.owner(id)
			if fid == 0 {
				continue
			}
			fr := files[fid]
			if fr == nil {
				fr = &fileRank{id: fid, counts: make([]int, len(terms)), rep: -1}
				files[fid] = fr
			}
			fr.counts[ti]++
			cover[id] += t.idf
			if cover[id] > fr.repCover {
				fr.rep, fr.repCover = id, cover[id]
			}
		}
	}
	avg := float64(cs.chunks) / float64(cs.files)
	var maxWhole float64
	for _, fr := range files {
		norm := k1 * (1 - b + b*float64(cs.size[fr.id])/avg)
		for ti, t := range terms {
			if n := float64(fr.counts[ti]); n > 0 {
				w := t.fileIDF
				if t.common {
					w /= 2 // matched in a name or path only
				}
				if t.phrase {
					w *= phraseShare
				}
				fr.whole += w * n * (k1 + 1) / (n + norm)
			}
		}
		maxWhole = max(maxWhole, fr.whole)
	}
	// The best chunk of each candidate file.
	var maxBest float64
	boosts := q.boosts(cands, terms, cs)
	for i := range cands {
		c := &cands[i]
		c.text *= 1 + boosts[i]
		fr := files[c.fileID]
		if fr == nil {
			fr = &fileRank{id: c.fileID, counts: make([]int, len(terms)), rep: -1}
			files[c.fileID] = fr
		}
		fr.class, fr.lang, fr.path = Classify(c.Path, c.Lang), c.Lang, c.Path
		fr.best = max(fr.best, c.text)
		fr.seen = true
		maxBest = max(maxBest, fr.best)
	}
	// Files that rank by their whole text but have no candidate chunk
	// are shown by their representative chunk.
	var extra []*fileRank
	for _, fr := range files {
		if !fr.seen && fr.rep >= 0 {
			extra = append(extra, fr)
		}
	}
	// Ties go by file id, so that the cut keeps the same files on every
	// run (files is a map).
	slices.SortFunc(extra, func(a, b *fileRank) int {
		return cmp.Or(cmp.Compare(b.whole, a.whole), cmp.Compare(a.id, b.id))
	})
	extra = extra[:min(len(extra), extraFiles)]
	var ids []int64
	for _, fr := range extra {
		ids = append(ids, fr.rep)
	}
	more, err := ix.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, c := range more {
		if !f.Keeps(c.Path, c.Lang) {
			continue
		}
		fr := files[cs.owner(c.ID)]
		fr.class, fr.lang, fr.path = Classify(c.Path, c.Lang), c.Lang, c.Path
		cands = append(cands, cand{Chunk: c, fileID: fr.id})
	}
	for _, fr := range files {
		s := 0.0
		if maxWhole > 0 {
			s += fileShare * fr.whole / maxWhole
		}
		if maxBest > 0 {
			s += (1 - fileShare) * fr.best / maxBest
		}
		fr.weight = q.intent.fileWeight(fr.path, fr.lang)
		if fr.class == ClassCode || fr.class == ClassTest {
			// Tests in a language none of the code is written in are
			// samples and fixtures of it (the syntax tests of a
			// highlighter), not the tests of the repository's code.
			fr.weight *= cs.langWeight(fr.id, fr.lang, q)
		}
		fr.base = s
		fr.score = s * fr.weight
	}
	if err := ix.rerank(ctx, files, cands, terms, cs); err != nil {
		return nil, err
	}
	out := make([]Chunk, len(cands))
	for i, c := range cands {
		fr := files[c.fileID]
		rel := 1.0 // a file's representative chunk stands for it
		if fr.best > 0 {
			rel = c.text / fr.best
		}
		c.Score = fr.score * (0.5 + 0.5*rel)
		out[i] = c.Chunk
	}
	slices.SortStableFunc(out, func(a, b Chunk) int { return cmp.Compare(b.Score, a.Score) })
	// A file with many matching chunks must not fill the list: at most a
	// sixteenth of n come from one file while others have chunks left.
	perFile := max(2, n/16)
	count := map[string]int{}
	var kept, over []Chunk
	for _, c := range out {
		if count[c.Path] >= perFile {
			over = append(over, c)
			continue
		}
		count[c.Path]++
		kept = append(kept, c)
	}
	out = append(kept, over...)
	return out[:min(n, len(out))], nil
}
