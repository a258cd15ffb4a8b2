package index

import (
	"math"
	"testing"
)

// TestOlderIndexStatisticsAreRecounted: an index whose full-text totals
// count rows it no longer holds, as every index a tern before the fix
// updated does, is recounted by its next update, even one that finds no
// file changed, and then ranks as it should.
func TestOlderIndexStatisticsAreRecounted(t *testing.T) {
	root := copyRepo(t)
	ix := openIndex(t, root)
	update(t, ix, Options{})
	want := searchHits(t, ix, equivQueries)
	gen, err := ix.Generation(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// FTS5 itself leaves the totals as they were on such a delete.
	for _, q := range []string{
		`INSERT INTO chunks_fts(rowid, name, path, body, words) VALUES(1000000, 'ghost', 'gone go', 'a parse of config files that was deleted', 'parse config')`,
		`DELETE FROM chunks_fts WHERE rowid = 1000000`,
	} {
		if _, err := ix.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if got, rows := ftsStatistics(t, ix); got == rows {
		t.Fatalf("the delete left the totals exact (%+v): this SQLite keeps them, and the recount is needed no more", got)
	}

	if st := update(t, ix, Options{}); st.Indexed != 0 {
		t.Errorf("the update read %d files; none changed", st.Indexed)
	}
	if got, rows := ftsStatistics(t, ix); got != rows {
		t.Errorf("after the update the totals count %+v; the rows hold %+v", got, rows)
	}
	if now, err := ix.Generation(t.Context()); err != nil || now == gen {
		t.Errorf("the generation stayed %d (%v): readers would keep scores of the old totals", now, err)
	}
	diffLines(t, "search hits after the recount", want, searchHits(t, ix, equivQueries))
}

func TestVarints(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 240, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<56 - 1, 1 << 56, math.MaxUint64} {
		b := appendVarint([]byte{0xff}, v)[1:]
		got, n := getVarint(b)
		if got != v || n != len(b) || n > 9 {
			t.Errorf("%d encodes as %x, which decodes as %d in %d bytes", v, b, got, n)
		}
		if n := len(b); n > 1 && n < 9 && b[0] == 0x80 {
			t.Errorf("%d encodes as %x, with a leading zero group", v, b) // not the shortest form
		}
		if _, n := getVarint(b[:len(b)-1]); n != 0 {
			t.Errorf("%x cut short decodes in %d bytes", b[:len(b)-1], n)
		}
	}
	if _, err := parseTotals([]byte{5, 1, 2, 3}); err == nil {
		t.Error("a totals record short of a column parses")
	}
	var tot ftsTotals
	if err := tot.addRow([]byte{1, 2, 3}); err == nil {
		t.Error("a row short of a column adds up")
	}
	want := ftsTotals{rows: 300, tokens: [ftsColumns]int64{1, 200, 70000, 0}}
	if got, err := parseTotals(want.record()); err != nil || got != want {
		t.Errorf("%+v reads back as %+v (%v)", want, got, err)
	}
}
