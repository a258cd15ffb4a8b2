package index

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// corpus holds the index-wide numbers the scores need, and which file
// each chunk belongs to, cached per generation.
type corpus struct {
	gen           int64
	chunks, files int
	// Chunk ids are runs of consecutive ids of one file: run i holds
	// starts[i]..ends[i] of file owners[i], runs sorted by start.
	starts, ends, owners []int64
	// size counts the chunks of each file; bytes is each file's size
	// and avgBytes their mean.
	size     map[int64]int
	bytes    map[int64]int64
	avgBytes float64
	// langs says how much of the repository's code each language is.
	langs langShares
}

// langWeight scales files in the repository's minor languages (scripts,
// completions and build helpers around the main code; tests in a language
// none of the code is written in, which are samples of it) down, unless
// the query names the language. id is the file's.
func (c *corpus) langWeight(id int64, lang string, q query) float64 {
	share := c.langs.of(id, lang)
	if share >= minorShare || q.words[lang] {
		return 1
	}
	return minorLang + (1-minorLang)*share/minorShare
}

// fileCount counts the files the chunks ids belong to.
func (c *corpus) fileCount(ids []int64) int {
	seen := map[int64]bool{}
	for _, id := range ids {
		seen[c.owner(id)] = true
	}
	delete(seen, 0)
	return len(seen)
}

// owner returns the file of chunk id, or 0.
func (c *corpus) owner(id int64) int64 {
	i, found := slices.BinarySearch(c.starts, id)
	if !found {
		i--
	}
	if i < 0 || id > c.ends[i] {
		return 0
	}
	return c.owners[i]
}

func (ix *Index) corpus(ctx context.Context) (*corpus, error) {
	gen, err := ix.Generation(ctx)
	if err != nil {
		return nil, err
	}
	ix.statsMu.Lock()
	defer ix.statsMu.Unlock()
	if ix.stats != nil && ix.stats.gen == gen {
		return ix.stats, nil
	}
	// The chunks_file index covers this query: the chunk texts are not read.
	rows, err := ix.db.QueryContext(ctx, `SELECT file_id, id FROM chunks ORDER BY file_id, id`)
	if err != nil {
		return nil, ix.fail("search index", err)
	}
	defer rows.Close()
	type run struct{ start, end, file int64 }
	var runs []run
	c := &corpus{gen: gen, size: map[int64]int{}}
	for rows.Next() {
		var file, id int64
		if err := rows.Scan(&file, &id); err != nil {
			return nil, ix.fail("search index", err)
		}
		c.chunks++
		c.size[file]++
		if l := len(runs) - 1; l >= 0 && runs[l].file == file && runs[l].end == id-1 {
			runs[l].end = id
		} else {
			runs = append(runs, run{id, id, file})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, ix.fail("search index", err)
	}
	slices.SortFunc(runs, func(a, b run) int { return cmp.Compare(a.start, b.start) })
	for _, r := range runs {
		c.starts, c.ends, c.owners = append(c.starts, r.start), append(c.ends, r.end), append(c.owners, r.file)
	}
	c.files = max(len(c.size), 1)
	if c.langs, c.bytes, err = ix.fileStats(ctx); err != nil {
		return nil, err
	}
	var total int64
	for _, n := range c.bytes {
		total += n
	}
	c.avgBytes = max(float64(total)/float64(max(len(c.bytes), 1)), 1)
	c.chunks = max(c.chunks, 1)
	ix.stats = c
	return c, nil
}

// idf is BM25's inverse document frequency of a word in df of n chunks.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}
