package index

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Ranking. A search scores files as well as chunks: a file's score fuses a
// whole-file BM25 over its chunks (so a file whose functions each hold a
// different query word counts) with the BM25 of its best chunk, scaled by
// its class (code before tests, docs and fixtures unless the query asks
// for them). A chunk's score is its file's, shared out by how it compares
// with the file's best chunk. A symbol the query names as an identifier
// raises its chunk's text score by a bounded share, more for rare names.

const (
	// candidates is how many chunks the full-text search ranks for the
	// file scores; files come from these.
	candidates = 300
	// k1 and b are the BM25 constants of the whole-file score. b is low:
	// term frequencies count chunks, which grow slower than the file, and
	// large files are where changes land more often.
	k1, b = 1.2, 0.1
	// fileShare is the weight of the whole-file score against the best
	// chunk's in a file's score.
	fileShare = 0.5
	// symbolShare bounds the symbol boost as a share of the text score.
	symbolShare = 0.5
)

// term is one query word with the chunks that hold it.
type term struct {
	word, expr string
	// ids are the chunks matching the word anywhere (or, for a common
	// word, in a symbol name or path only).
	ids    []int64
	common bool
	idf    float64
}

// corpus holds the index-wide numbers the scores need, cached per
// generation.
type corpus struct {
	gen           int64
	chunks, files int
	avgSize       float64
}

func (ix *Index) corpus(ctx context.Context) (corpus, error) {
	gen, err := ix.Generation(ctx)
	if err != nil {
		return corpus{}, err
	}
	ix.statsMu.Lock()
	defer ix.statsMu.Unlock()
	if ix.stats.gen == gen && ix.stats.chunks > 0 {
		return ix.stats, nil
	}
	c := corpus{gen: gen}
	var avg *float64
	err = ix.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunks), count(*), avg(size) FROM files WHERE skip = ''`).
		Scan(&c.chunks, &c.files, &avg)
	if err != nil {
		return corpus{}, ix.fail("search index", err)
	}
	if avg != nil {
		c.avgSize = *avg
	}
	c.chunks, c.files = max(c.chunks, 1), max(c.files, 1)
	c.avgSize = max(c.avgSize, 1)
	ix.stats = c
	return c, nil
}

// idf is BM25's inverse document frequency of a word in df of n chunks.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
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
	if len(words) > 32 {
		words = words[:32]
	}
	f = f.Clean()
	cs, err := ix.corpus(ctx)
	if err != nil {
		return nil, err
	}
	terms := make([]term, len(words))
	var rare, common []string
	for i, w := range words {
		t := &terms[i]
		t.word, t.expr = w, ftsTerm(w)
		if t.ids, err = ix.rowids(ctx, t.expr, commonRows); err != nil {
			return nil, err
		}
		t.common = len(t.ids) >= commonRows
		t.idf = idf(cs.chunks, len(t.ids))
		if t.common {
			// Words most chunks have are looked up among names and paths.
			common = append(common, t.expr)
			if t.ids, err = ix.rowids(ctx, "{name path} : "+t.expr, commonRows); err != nil {
				return nil, err
			}
		} else {
			rare = append(rare, t.expr)
		}
	}
	expr := strings.Join(rare, " OR ")
	if len(common) > 0 {
		names := "{name path} : (" + strings.Join(common, " OR ") + ")"
		expr = strings.TrimPrefix(expr+" OR "+names, " OR ")
	}
	cands, err := ix.candidates(ctx, expr, f, max(candidates, n))
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	q := analyse(query, words)
	return ix.rank(ctx, q, terms, cands, cs, n)
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

// fileChunks maps every chunk of the given files to its file.
func (ix *Index) fileChunks(ctx context.Context, files []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	for len(files) > 0 {
		batch := files[:min(len(files), 500)]
		files = files[len(batch):]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		rows, err := ix.db.QueryContext(ctx, `SELECT id, file_id FROM chunks WHERE file_id IN (?`+
			strings.Repeat(",?", len(batch)-1)+`)`, args...)
		if err != nil {
			return nil, ix.fail("search index", err)
		}
		for rows.Next() {
			var id, file int64
			if err := rows.Scan(&id, &file); err != nil {
				rows.Close()
				return nil, ix.fail("search index", err)
			}
			out[id] = file
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, ix.fail("search index", err)
		}
	}
	return out, nil
}

// fileRank is the ranking state of one candidate file.
type fileRank struct {
	id     int64
	size   int64
	class  string
	counts []int   // chunks of the file holding each term
	best   float64 // best chunk text score
	whole  float64 // whole-file BM25
	score  float64
}

func (ix *Index) rank(ctx context.Context, q query, terms []term, cands []cand, cs corpus, n int) ([]Chunk, error) {
	files := map[int64]*fileRank{}
	var order []int64
	for i := range cands {
		c := &cands[i]
		c.text *= 1 + q.symbolBoost(c.Chunk, terms, cs)
		fr := files[c.fileID]
		if fr == nil {
			fr = &fileRank{id: c.fileID, size: c.size, class: Classify(c.Path, c.Lang), counts: make([]int, len(terms))}
			files[c.fileID] = fr
			order = append(order, c.fileID)
		}
		fr.best = max(fr.best, c.text)
	}
	owner, err := ix.fileChunks(ctx, order)
	if err != nil {
		return nil, err
	}
	for ti, t := range terms {
		for _, id := range t.ids {
			if fid, ok := owner[id]; ok {
				files[fid].counts[ti]++
			}
		}
	}
	var maxWhole, maxBest float64
	for _, fr := range files {
		norm := k1 * (1 - b + b*float64(fr.size)/cs.avgSize)
		for ti, t := range terms {
			if n := float64(fr.counts[ti]); n > 0 {
				w := t.idf
				if t.common {
					w /= 2 // matched in a name or path only
				}
				fr.whole += w * n * (k1 + 1) / (n + norm)
			}
		}
		maxWhole = max(maxWhole, fr.whole)
		maxBest = max(maxBest, fr.best)
	}
	for _, fr := range files {
		s := 0.0
		if maxWhole > 0 {
			s += fileShare * fr.whole / maxWhole
		}
		if maxBest > 0 {
			s += (1 - fileShare) * fr.best / maxBest
		}
		fr.score = s * q.intent.classWeight(fr.class)
	}
	out := make([]Chunk, len(cands))
	for i, c := range cands {
		fr := files[c.fileID]
		rel := 0.0
		if fr.best > 0 {
			rel = c.text / fr.best
		}
		c.Score = fr.score * (0.5 + 0.5*rel)
		out[i] = c.Chunk
	}
	slices.SortStableFunc(out, func(a, b Chunk) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(n, len(out))], nil
}

// query is what ranking reads from the query text besides its words.
type query struct {
	intent intent
	// idents are the lower-case names the query writes as identifiers;
	// weak ones are capitalised words within a sentence.
	idents map[string]float64
	// words is the set of the query's lower-case words and their parts.
	words map[string]bool
}

// analyse reads the identifiers and the intent of a query.
func analyse(raw string, words []string) query {
	q := query{intent: queryIntent(words), idents: map[string]float64{}, words: map[string]bool{}}
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
		eachIdent(rest[i+1:i+1+j], func(id string) { q.idents[strings.ToLower(id)] = 1 })
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
func (q query) symbolBoost(c Chunk, terms []term, cs corpus) float64 {
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
