package index

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
)

// rerank adds a whole-file BM25 with true term frequencies to the scores
// of the best files: the chunk counts of the file score cannot tell a file
// that names a word once per function from one that is about it. The
// texts of the tfFiles best files are read and their words counted, so
// the cost is bounded whatever the repository's size.
func (ix *Index) rerank(ctx context.Context, files map[int64]*fileRank, cands []cand, terms []term, cs *corpus) error {
	// The query's plain words (letters and digits: aarch64 is one) and
	// their idf among files; identifiers written as one are searched by
	// their parts, which are words of the query too.
	weight := map[string]float64{}
	for _, t := range terms {
		w := strings.ToLower(t.word)
		if t.phrase || t.common || !plainWord(w) {
			continue // a common word's chunks are not all known
		}
		weight[w] = max(weight[w], t.fileIDF)
	}
	if len(weight) == 0 {
		return nil
	}
	if len(weight) > tfWords {
		// A long query (a prompt, for RAG): its rarest words tell.
		ws := slices.SortedFunc(maps.Keys(weight), func(a, b string) int {
			return cmp.Or(cmp.Compare(weight[b], weight[a]), strings.Compare(a, b))
		})
		for _, w := range ws[tfWords:] {
			delete(weight, w)
		}
	}
	paths := map[int64]string{}
	for _, c := range cands {
		paths[c.fileID] = c.Path
	}
	var short []*fileRank
	for _, fr := range files {
		if _, ok := paths[fr.id]; ok {
			short = append(short, fr)
		}
	}
	// Ties go by path, so that the same files are read whatever order
	// the index stored them in.
	slices.SortFunc(short, func(a, b *fileRank) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(paths[a.id], paths[b.id]))
	})
	short = short[:min(len(short), tfFiles)]
	// Only the chunks holding a query word count, and every chunk holding
	// a word less common than commonRows is known.
	inShort := map[int64]bool{}
	for _, fr := range short {
		inShort[fr.id] = true
	}
	chunks := []int64{}
	seen := map[int64]bool{}
	for _, t := range terms {
		if t.phrase || weight[strings.ToLower(t.word)] == 0 {
			continue
		}
		for _, id := range t.ids {
			if !seen[id] && inShort[cs.owner(id)] {
				seen[id] = true
				chunks = append(chunks, id)
			}
		}
	}
	tf, err := ix.termCounts(ctx, short, chunks, weight)
	if err != nil {
		return err
	}
	var maxTF float64
	for i, fr := range short {
		norm := tfK1 * (1 - tfB + tfB*float64(cs.bytes[fr.id])/cs.avgBytes)
		for w, n := range tf[i] {
			fr.tf += weight[w] * n * (tfK1 + 1) / (n + norm)
		}
		maxTF = max(maxTF, fr.tf)
	}
	if maxTF == 0 {
		return nil
	}
	for _, fr := range files {
		fr.score = fr.weight * ((1-tfShare)*fr.base + tfShare*fr.tf/maxTF)
	}
	return nil
}

// termCounts counts, in the chunks of each file (those in chunks if it is
// not nil), the words (and the parts of identifiers) that are keys of
// words, in any case. Only the spelling counts: a stem's other forms name
// other things in code too often (name for named, matcher for matchers).
func (ix *Index) termCounts(ctx context.Context, short []*fileRank, chunks []int64, words map[string]float64) ([]map[string]float64, error) {
	out := make([]map[string]float64, len(short))
	if len(short) == 0 {
		return out, nil
	}
	at := map[int64]int{}
	byFile := make([]any, len(short))
	for i, fr := range short {
		at[fr.id] = i
		byFile[i] = fr.id
		out[i] = map[string]float64{}
	}
	// Most parts are told apart by their length and first letter.
	var lens [65]bool
	var firsts [256]bool
	for w := range words {
		if len(w) < len(lens) {
			lens[len(w)] = true
			firsts[w[0]] = true
		}
	}
	var buf [64]byte
	count := func(counts map[string]float64, text []byte) {
		eachWordPart(text, func(part []byte) {
			if len(part) >= len(lens) || !lens[len(part)] || !firsts[part[0]|0x20] {
				return
			}
			lower := buf[:len(part)]
			for i, c := range part {
				lower[i] = c | 0x20 // ASCII letters and digits only
			}
			if words[string(lower)] > 0 {
				counts[string(lower)]++
			}
		})
	}
	read := func(q string, args []any) error {
		rows, err := ix.db.QueryContext(ctx, q+` IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
		if err != nil {
			return ix.fail("search index", err)
		}
		defer rows.Close()
		var text []byte
		var id int64
		for rows.Next() {
			if err := rows.Scan(&id, &text); err != nil {
				return ix.fail("search index", err)
			}
			count(out[at[id]], text)
		}
		return ix.fail("search index", rows.Err())
	}
	if chunks == nil {
		return out, read(`SELECT file_id, text FROM chunks WHERE file_id`, byFile)
	}
	for len(chunks) > 0 {
		batch := chunks[:min(len(chunks), 500)]
		chunks = chunks[len(batch):]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		if err := read(`SELECT file_id, text FROM chunks WHERE id`, args); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// plainWord reports whether w is one run of ASCII letters and digits, as
// eachWordPart gives lower-case words.
func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isAlnum(w[i]) {
			return false
		}
	}
	return len(w) > 1 && len(w) < 64
}
