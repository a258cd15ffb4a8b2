package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FTS5 keeps a totals record beside its full-text index: how many rows
// the table holds, and how many tokens each column holds in all. bm25
// takes N and each column's average length from it. A delete from a
// contentless_delete table, as chunks_fts is, adds a tombstone but leaves
// the totals as they were (SQLite's fts5StorageContentlessDelete; the
// delete of other tables takes the row off). Left alone, every file an
// update reads again would count twice, and an index would rank by its
// history: after a format upgrade, which reads every file again, N was
// twice the chunks the index held.
//
// So the writer keeps the totals itself, to the rule FTS5's
// integrity-check holds tables with content to: the totals are the sums
// of the sizes FTS5 keeps per row in chunks_fts_docsize (and drops with
// the row). Before the writer deletes a file's rows it adds up their
// sizes; before the transaction commits it takes them off the totals.
// Each committed transaction leaves the totals exact, so an interrupted
// update does too. An index whose totals are off (updated by a tern
// before this one) is recounted once, by its next update.

// ftsColumns is how many columns chunks_fts has: name, path, body, words.
const ftsColumns = 4

// ftsTotals is what FTS5's totals record holds, or a change to it.
type ftsTotals struct {
	rows   int64
	tokens [ftsColumns]int64
}

// The totals record is row 1 of chunks_fts_data: the row count, then each
// column's token count, as SQLite varints. A row of chunks_fts_docsize
// holds one varint per column: the row's token count in that column.
const (
	readTotalsSQL  = `SELECT block FROM chunks_fts_data WHERE id = 1`
	writeTotalsSQL = `INSERT OR REPLACE INTO chunks_fts_data(id, block) VALUES(1, ?)`
	// flushTotalsSQL makes FTS5 write out what it holds in memory. While
	// a transaction writes to the table, FTS5 keeps the totals in memory
	// and writes them out at a savepoint or at commit; after a savepoint
	// the record is current, and FTS5 writes it again only if the table
	// is written to again.
	flushTotalsSQL = `SAVEPOINT fts_totals; RELEASE fts_totals`
)

// errTotals: a totals or size record is not what FTS5 writes.
var errTotals = fmt.Errorf("malformed full-text statistics: %w", ErrCorrupt)

// parseTotals reads a totals record; an empty one (a new table) is zero.
func parseTotals(b []byte) (ftsTotals, error) {
	var t ftsTotals
	if len(b) == 0 {
		return t, nil
	}
	v, n := getVarint(b)
	if n == 0 {
		return t, errTotals
	}
	t.rows, b = int64(v), b[n:]
	for i := range t.tokens {
		if v, n = getVarint(b); n == 0 {
			return t, errTotals
		}
		t.tokens[i], b = int64(v), b[n:]
	}
	return t, nil
}

// record is the totals record of t.
func (t ftsTotals) record() []byte {
	b := appendVarint(nil, uint64(t.rows))
	for _, n := range t.tokens {
		b = appendVarint(b, uint64(n))
	}
	return b
}

// addRow adds a row of the sizes sz, as chunks_fts_docsize holds them.
func (t *ftsTotals) addRow(sz []byte) error {
	var row ftsTotals
	for i := range row.tokens {
		v, n := getVarint(sz)
		if n == 0 {
			return errTotals
		}
		row.tokens[i], sz = int64(v), sz[n:]
	}
	t.rows++
	for i, n := range row.tokens {
		t.tokens[i] += n
	}
	return nil
}

// minus is t less d, and whether no count went below zero.
func (t ftsTotals) minus(d ftsTotals) (ftsTotals, bool) {
	t.rows -= d.rows
	ok := t.rows >= 0
	for i := range t.tokens {
		t.tokens[i] -= d.tokens[i]
		ok = ok && t.tokens[i] >= 0
	}
	return t, ok
}

// querier is what reads the totals: the writer's connection, or the
// pool.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readTotals reads the totals record as FTS5 last wrote it out.
func readTotals(ctx context.Context, q querier) (ftsTotals, error) {
	var b []byte
	err := q.QueryRowContext(ctx, readTotalsSQL).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return ftsTotals{}, nil
	}
	if err != nil {
		return ftsTotals{}, err
	}
	return parseTotals(b)
}

// countTotals adds up the sizes of the rows chunks_fts holds: what the
// totals record should say.
func countTotals(ctx context.Context, q querier) (ftsTotals, error) {
	var t ftsTotals
	rows, err := q.QueryContext(ctx, `SELECT sz FROM chunks_fts_docsize`)
	if err != nil {
		return t, err
	}
	defer rows.Close()
	for rows.Next() {
		var sz []byte
		if err := rows.Scan(&sz); err != nil {
			return t, err
		}
		if err := t.addRow(sz); err != nil {
			return t, err
		}
	}
	return t, rows.Err()
}

// noteDeleted adds the sizes of a file's full-text rows, which are about
// to be deleted, to those the transaction takes off the totals.
func (w *writer) noteDeleted(fileID int64) error {
	if err := w.begin(); err != nil {
		return err
	}
	rows, err := w.stmt["rowSizes"].QueryContext(w.ctx, fileID)
	if err != nil {
		return w.ix.fail("index write", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sz []byte
		if err := rows.Scan(&sz); err != nil {
			return w.ix.fail("index write", err)
		}
		if err := w.deleted.addRow(sz); err != nil {
			return w.ix.fail("index write", err)
		}
	}
	return w.ix.fail("index write", rows.Err())
}

// settleTotals takes the rows deleted in the open transaction off the
// totals. It runs after the transaction's last write to chunks_fts.
func (w *writer) settleTotals() error {
	if w.deleted.rows == 0 {
		return nil
	}
	if err := w.execSQL(flushTotalsSQL); err != nil {
		return err
	}
	t, err := readTotals(w.ctx, w.conn)
	if err != nil {
		return w.ix.fail("index write", err)
	}
	t, ok := t.minus(w.deleted)
	if !ok {
		// The totals were short already; only a count can tell.
		if t, err = countTotals(w.ctx, w.conn); err != nil {
			return w.ix.fail("index write", err)
		}
	}
	w.deleted = ftsTotals{}
	return w.writeTotals(t)
}

func (w *writer) writeTotals(t ftsTotals) error {
	_, err := w.conn.ExecContext(w.ctx, writeTotalsSQL, t.record())
	return w.ix.fail("index write", err)
}

// checkTotals recounts the totals in a transaction of its own when they
// count another number of rows than chunks_fts holds (counting the rows
// costs a fraction of a millisecond on 100,000 chunks; adding up their
// sizes, some 30 ms).
func (w *writer) checkTotals() error {
	t, err := readTotals(w.ctx, w.conn)
	if err != nil {
		return w.ix.fail("read index", err)
	}
	var rows int64
	if err := w.conn.QueryRowContext(w.ctx, `SELECT count(*) FROM chunks_fts_docsize`).Scan(&rows); err != nil {
		return w.ix.fail("read index", err)
	}
	if t.rows == rows {
		return nil
	}
	if err := w.execSQL(flushTotalsSQL); err != nil {
		return err
	}
	if t, err = countTotals(w.ctx, w.conn); err != nil {
		return w.ix.fail("index write", err)
	}
	if err := w.writeTotals(t); err != nil {
		return err
	}
	w.changed = true // the scores change
	return w.commit()
}

// getVarint decodes a SQLite varint (big-endian, seven bits a byte, the
// ninth byte whole) and returns its length, 0 if b is cut short.
func getVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// appendVarint appends v as a SQLite varint.
func appendVarint(b []byte, v uint64) []byte {
	if v>>56 != 0 {
		var buf [9]byte
		buf[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			buf[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(b, buf[:]...)
	}
	var buf [8]byte
	i := len(buf) - 1
	buf[i] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		i--
		buf[i] = byte(v&0x7f) | 0x80
	}
	return append(b, buf[i:]...)
}
