package index

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// contentDigest describes everything an index holds that a search can
// see, one line per file and per chunk, without row ids (they depend on
// the order in which workers finish files): every file's row but its
// mtime, every chunk's row, for each chunk a digest of the terms its
// full-text row is indexed under, with their columns and offsets, and
// the full-text statistics bm25 reads (FTS5's totals). Two indexes with
// equal digests answer every query alike.
func contentDigest(tb testing.TB, ix *Index) []string {
	tb.Helper()
	ctx := context.Background()
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	// The full-text table is contentless: what it holds can only be read
	// back from its index, through fts5vocab.
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.digest_vocab USING fts5vocab(main, chunks_fts, instance)`); err != nil {
		tb.Fatal(err)
	}
	terms := map[int64]uint64{}
	rows, err := conn.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.digest_vocab`)
	if err != nil {
		tb.Fatal(err)
	}
	h := fnv.New64a()
	for rows.Next() {
		var term, col string
		var doc, off int64
		if err := rows.Scan(&term, &doc, &col, &off); err != nil {
			tb.Fatal(err)
		}
		// Per document the rows come in term, column, offset order, so
		// chaining the hash is order-safe.
		h.Reset()
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", terms[doc], term, col, off)
		terms[doc] = h.Sum64()
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	rows.Close()

	var out []string
	rows, err = conn.QueryContext(ctx, `SELECT path, size, hash, lang, skip, idents FROM files`)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var path, lang, skip, idents string
		var size int64
		var hash []byte
		if err := rows.Scan(&path, &size, &hash, &lang, &skip, &idents); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("file %s %d %x %s %q %x", path, size, hash, lang, skip, sha256.Sum256([]byte(idents))))
	}
	rows.Close()
	rows, err = conn.QueryContext(ctx, `SELECT c.id, f.path, c.start_line, c.end_line, c.kind, c.symbol, c.sig, c.text, c.hash
		FROM chunks c JOIN files f ON f.id = c.file_id`)
	if err != nil {
		tb.Fatal(err)
	}
	fts := 0
	for rows.Next() {
		var id int64
		var path, kind, symbol, sig, text string
		var start, end int
		var hash []byte
		if err := rows.Scan(&id, &path, &start, &end, &kind, &symbol, &sig, &text, &hash); err != nil {
			tb.Fatal(err)
		}
		d, ok := terms[id]
		if ok {
			fts++
		}
		out = append(out, fmt.Sprintf("chunk %s %06d %06d %s %q %q %x %x %x", path, start, end, kind, symbol, sig,
			sha256.Sum256([]byte(text)), hash, d))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	rows.Close()
	if fts != len(terms) {
		out = append(out, fmt.Sprintf("full-text rows without a chunk: %d", len(terms)-fts))
	}
	var totals string
	if err := conn.QueryRowContext(ctx, `SELECT hex(block) FROM chunks_fts_data WHERE id = 1`).Scan(&totals); err != nil {
		tb.Fatal(err)
	}
	out = append(out, "full-text totals "+totals)
	slices.Sort(out)
	return out
}

// searchHits runs queries and describes their hits without row ids. Hits
// of equal score are listed in path order: among ties, the order follows
// the row ids. It asks for more hits than the test trees have chunks that
// match, so that ties are never cut.
func searchHits(tb testing.TB, ix *Index, queries []string) []string {
	tb.Helper()
	var out []string
	for _, q := range queries {
		hits, err := ix.Lexical(context.Background(), q, Filter{}, 200)
		if err != nil {
			tb.Fatalf("search %q: %v", q, err)
		}
		slices.SortStableFunc(hits, func(a, b Chunk) int {
			if a.Score != b.Score {
				if a.Score > b.Score {
					return -1
				}
				return 1
			}
			return strings.Compare(fmt.Sprintf("%s:%06d", a.Path, a.StartLine), fmt.Sprintf("%s:%06d", b.Path, b.StartLine))
		})
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%q %s:%d-%d %s %s %.9g", q, h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol, h.Score))
		}
	}
	return out
}

func diffLines(tb testing.TB, what string, a, b []string) {
	tb.Helper()
	if slices.Equal(a, b) {
		return
	}
	shown := 0
	for i := 0; i < max(len(a), len(b)) && shown < 10; i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			tb.Errorf("%s differ at line %d:\n  %s\n  %s", what, i, x, y)
			shown++
		}
	}
	tb.Errorf("%s: %d and %d lines", what, len(a), len(b))
}

var equivQueries = []string{
	"parse config file", "ParseConfig", "cart total", "hash table", "http server",
	"user", "matrix multiply", "deploy", "button click", "store", "README",
	"lru cache evict", "func", "main", "vendor",
}

// TestFreshAndIncrementalIndexesAgree builds the same tree's index three
// ways: from scratch in one update (the bulk path); in several updates that
// add files, with tiny batches; and in updates that also change, revert and
// delete files, then read every file again as after a format upgrade. All
// three must hold the same files, chunks, full-text rows and statistics,
// and answer searches alike, scores included: an index ranks by what it
// holds, not by its history.
func TestFreshAndIncrementalIndexesAgree(t *testing.T) {
	langs, err := readDir("testdata/langs")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for name, body := range langs {
		files["langs/"+name] = body
	}
	for i := range 40 {
		files[fmt.Sprintf("gen/f%02d.go", i)] = fmt.Sprintf(
			"package gen\n\n// Handler%[1]d serves request %[1]d.\nfunc Handler%[1]d(parseConfigFile string) int {\n\treturn %[1]d\n}\n\ntype cartTotal%[1]d struct{ userID int }\n", i)
	}
	names := slices.Sorted(maps.Keys(files))
	half, rest := map[string]string{}, map[string]string{}
	for i, name := range names {
		if i%2 == 0 {
			half[name] = files[name]
		} else {
			rest[name] = files[name]
		}
	}
	open := func(root string) *Index {
		ix, err := OpenAt(t.Context(), root, filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}

	root := copyRepo(t)
	writeFiles(t, root, files)
	fresh := open(root)
	update(t, fresh, Options{})
	want := contentDigest(t, fresh)
	wantHits := searchHits(t, fresh, equivQueries)

	defer setBatchLimits(3, 1<<10)()
	root = copyRepo(t)
	added := open(root)
	update(t, added, Options{})
	writeFiles(t, root, half)
	update(t, added, Options{Workers: 1})
	writeFiles(t, root, rest)
	update(t, added, Options{Workers: 3})
	diffLines(t, "contents, files added", want, contentDigest(t, added))
	diffLines(t, "search hits, files added", wantHits, searchHits(t, added, equivQueries))

	root = copyRepo(t)
	changed := open(root)
	writeFiles(t, root, half)
	update(t, changed, Options{})
	writeFiles(t, root, map[string]string{
		names[0]:      "package gen\n\nfunc changed() {}\n",
		"gone/tmp.go": "package gone\n\nfunc Temporary() {}\n",
	})
	update(t, changed, Options{})
	writeFiles(t, root, files) // the changed file goes back to what it was
	removeAll(t, filepath.Join(root, "gone"))
	update(t, changed, Options{})
	diffLines(t, "contents, files changed and deleted", want, contentDigest(t, changed))
	diffLines(t, "search hits, files changed and deleted", wantHits, searchHits(t, changed, equivQueries))
	markOldFormat(t, changed)
	if st := update(t, changed, Options{}); !st.Reformatted || st.Indexed == 0 {
		t.Fatalf("the update after a format change did not read every file again: %+v", st)
	}
	diffLines(t, "contents, every file read again", want, contentDigest(t, changed))
	diffLines(t, "search hits, every file read again", wantHits, searchHits(t, changed, equivQueries))
}

// markOldFormat makes ix look made by an older tern: its next update
// reads every file again.
func markOldFormat(tb testing.TB, ix *Index) {
	tb.Helper()
	if _, err := ix.db.Exec(`UPDATE meta SET value = 'old' WHERE key = 'chunk_format'`); err != nil {
		tb.Fatal(err)
	}
}

// setBatchLimits changes the batch limits until the returned function
// restores them.
func setBatchLimits(files, bytes int) func() {
	f, b := batchFiles, batchBytes
	batchFiles, batchBytes = files, bytes
	return func() { batchFiles, batchBytes = f, b }
}

func removeAll(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

// TestRowIDsFollowTheWalk checks that files are stored in walk order
// whichever worker finishes first: the same tree gets the same row ids,
// and so the same order among hits of equal score, with any number of
// workers.
func TestRowIDsFollowTheWalk(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		// Sizes vary so that workers finish out of order.
		files[fmt.Sprintf("p%02d/f.go", i)] = fmt.Sprintf("package p\n\n%s// Run%d runs.\nfunc Run%d() {}\n",
			strings.Repeat("// padding line\n", (i*7)%23*40), i, i)
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	var want []string
	for _, workers := range []int{1, 2, 5} {
		ix, err := OpenAt(t.Context(), root, filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		update(t, ix, Options{Workers: workers})
		rows, err := ix.db.QueryContext(t.Context(), `SELECT c.id, f.id, f.path, c.start_line FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY c.id`)
		if err != nil {
			t.Fatal(err)
		}
		var got, paths []string
		for rows.Next() {
			var id, fid int64
			var path string
			var line int
			if err := rows.Scan(&id, &fid, &path, &line); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d %d %s:%d", id, fid, path, line))
			paths = append(paths, path)
		}
		rows.Close()
		hits, err := ix.Lexical(t.Context(), "run", Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			got = append(got, fmt.Sprintf("hit %d %s %g", h.ID, h.Path, h.Score))
		}
		ix.Close()
		if !slices.IsSorted(paths) {
			t.Errorf("with %d workers, row ids do not follow the walk: %v", workers, paths)
		}
		if want == nil {
			want = got
			continue
		}
		diffLines(t, fmt.Sprintf("rows with %d workers", workers), want, got)
	}
}
