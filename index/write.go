package index

import (
	"context"
	"database/sql"
	"strconv"
	"time"
)

// Batch limits: a write transaction commits after this many files, this
// much text, or this much time, whichever comes first. Every batch holds
// whole files, so an interrupted update leaves a consistent index. A batch
// of stored files waits in memory and is written at once, its full-text
// rows last (see flush), so these bound the memory an update holds too:
// two batches, one being filled and one being written. Larger batches make
// fewer full-text segments to merge, but the memory they hold also lets
// the garbage of large parse trees pile up before a collection: with two
// 24 MB batches, indexing the Go module cache peaked near 1 GiB (912 MiB,
// where 12 MB batches peak at about 800).
var (
	batchFiles = 4096
	batchBytes = 12 << 20
	batchTime  = 5 * time.Second
)

// minTailBatch is the smallest batch cut early near the end of an update
// (see chunkAll).
const minTailBatch = 1 << 20

// writerCacheKiB is the page cache of the writing connection: the chunk
// hash index takes random inserts, which SQLite's default 2 MiB cache
// turns into page reads on a large repository.
const writerCacheKiB = 64 << 10

// ftsHashBytes is how much pending full-text data FTS5 holds before it
// writes a segment (its default is 1 MiB); larger segments mean less
// merging.
const ftsHashBytes = 32 << 20

// writer is the one goroutine that writes the index during an update. It
// runs its own transactions on one connection (BEGIN IMMEDIATE … COMMIT),
// so its prepared statements are used as they are: database/sql's Tx
// prepares a Conn's statement again on every use.
type writer struct {
	ix *Index
	// ctx is never cancelled: a batch that was started is committed, so
	// cancellation loses no finished work.
	ctx  context.Context
	conn *sql.Conn
	stmt map[string]*sql.Stmt

	inTx    bool
	batch   []record // stored files waiting for flush
	files   int
	bytes   int
	opened  time.Time
	changed bool // the open transaction changed chunks or vectors
	dropped bool // chunks were deleted during this update
	// deleted adds up the full-text rows the open transaction deleted,
	// to take off FTS5's totals before it commits (see totals.go).
	deleted ftsTotals
}

var writeSQL = map[string]string{
	"upsertFile": `INSERT INTO files(path, size, mtime, hash, lang, skip, idents) VALUES(?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, hash = excluded.hash,
		lang = excluded.lang, skip = excluded.skip, idents = excluded.idents RETURNING id`,
	"touchFile":    `UPDATE files SET size = ?, mtime = ? WHERE id = ?`,
	"rowSizes":     `SELECT d.sz FROM chunks c JOIN chunks_fts_docsize d ON d.id = c.id WHERE c.file_id = ?`,
	"deleteFTS":    `DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)`,
	"deleteChunks": `DELETE FROM chunks WHERE file_id = ?`,
	"deleteFile":   `DELETE FROM files WHERE id = ?`,
	"insertChunk": `INSERT INTO chunks(file_id, start_line, end_line, kind, symbol, sig, text, hash)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?)`,
	"insertFTS":  `INSERT INTO chunks_fts(rowid, name, path, body, words) VALUES(?, ?, ?, ?, ?)`,
	"putVector":  `INSERT OR REPLACE INTO vectors(hash, vec) VALUES(?, ?)`,
	"setMeta":    `INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
	"generation": `UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'`,
}

func (ix *Index) newWriter(ctx context.Context) (*writer, error) {
	ctx = context.WithoutCancel(ctx)
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return nil, ix.fail("index write", err)
	}
	w := &writer{ix: ix, ctx: ctx, conn: conn, stmt: map[string]*sql.Stmt{}}
	// The cache is the connection's; the pool may hand it to readers
	// later, which a larger cache does not hurt.
	// Without memory mapping, what the writer reads (segments to merge,
	// pages to update) stays within its page cache: the mapped pages of a
	// large index would count in the process's memory, 100 MB and more.
	for _, p := range []string{`PRAGMA cache_size = -` + strconv.Itoa(writerCacheKiB), `PRAGMA mmap_size = 0`} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			w.close()
			return nil, ix.fail("index write", err)
		}
	}
	for name, q := range writeSQL {
		s, err := conn.PrepareContext(ctx, q)
		if err != nil {
			w.close()
			return nil, ix.fail("index write", err)
		}
		w.stmt[name] = s
	}
	return w, nil
}

func (w *writer) close() {
	if w.inTx {
		w.conn.ExecContext(w.ctx, `ROLLBACK`)
		w.inTx = false
	}
	for _, s := range w.stmt {
		s.Close()
	}
	// The pool hands the connection to readers next.
	w.conn.ExecContext(w.ctx, `PRAGMA mmap_size = `+strconv.Itoa(mmapBytes))
	w.conn.Close()
}

// exec runs a prepared statement in the open transaction.
func (w *writer) exec(name string, args ...any) (sql.Result, error) {
	if err := w.begin(); err != nil {
		return nil, err
	}
	res, err := w.stmt[name].ExecContext(w.ctx, args...)
	return res, w.ix.fail("index write", err)
}

// execSQL runs a statement that is not prepared in the open transaction.
func (w *writer) execSQL(query string) error {
	if err := w.begin(); err != nil {
		return err
	}
	_, err := w.conn.ExecContext(w.ctx, query)
	return w.ix.fail("index write", err)
}

func (w *writer) begin() error {
	if w.inTx {
		return nil
	}
	if _, err := w.conn.ExecContext(w.ctx, `BEGIN IMMEDIATE`); err != nil {
		return w.ix.fail("index write", err)
	}
	w.inTx, w.files, w.bytes, w.opened, w.changed = true, 0, 0, time.Now(), false
	w.deleted = ftsTotals{}
	return nil
}

// commit writes the batch and ends the open transaction, if any, bumping
// the generation when the content changed.
func (w *writer) commit() error {
	if err := w.flush(); err != nil {
		return err
	}
	if !w.inTx {
		return nil
	}
	if err := w.settleTotals(); err != nil {
		return err
	}
	if w.changed {
		if _, err := w.stmt["generation"].ExecContext(w.ctx); err != nil {
			return w.ix.fail("index write", err)
		}
	}
	_, err := w.conn.ExecContext(w.ctx, `COMMIT`)
	if err != nil {
		w.conn.ExecContext(w.ctx, `ROLLBACK`)
	}
	w.inTx = false
	return w.ix.fail("index commit", err)
}

// maybeCommit commits when the batch is full.
func (w *writer) maybeCommit() error {
	if w.files >= batchFiles || w.bytes >= batchBytes || time.Since(w.opened) >= batchTime {
		return w.commit()
	}
	return nil
}

// put stores one processed file: at once when it goes or is touched, with
// the batch otherwise.
func (w *writer) put(r record) error {
	if err := w.add(r); err != nil {
		return err
	}
	return w.maybeCommit()
}

// write stores a batch of processed files in one transaction.
func (w *writer) write(batch []record) error {
	for _, r := range batch {
		if err := w.add(r); err != nil {
			return err
		}
	}
	return w.commit()
}

// add deletes or touches a file at once, and queues a stored one for
// flush.
func (w *writer) add(r record) error {
	if err := w.begin(); err != nil {
		return err
	}
	w.files++
	switch {
	case r.gone:
		if r.known != nil {
			if err := w.deleteFile(r.known.id); err != nil {
				return err
			}
		}
	case r.touch:
		if _, err := w.exec("touchFile", r.size, r.mtime, r.known.id); err != nil {
			return err
		}
	default:
		w.batch = append(w.batch, r)
		for _, c := range r.chunks {
			w.bytes += len(c.text)
		}
	}
	return nil
}

// flush writes the batch's files and chunks, then all their full-text
// rows together. FTS5 writes its pending rows out as a segment whenever
// another statement of the transaction opens a savepoint, as the file
// upsert does: interleaved, every file made its own tiny segment, and
// merging those was a fifth of indexing. In this order a batch makes a
// few large ones.
func (w *writer) flush() error {
	if len(w.batch) == 0 {
		return nil
	}
	batch := w.batch
	w.batch = nil
	ids := make([][]int64, len(batch))
	for i, r := range batch {
		var err error
		if ids[i], err = w.storeFile(r); err != nil {
			return err
		}
	}
	for i, r := range batch {
		for j, c := range r.chunks {
			if _, err := w.exec("insertFTS", ids[i][j], c.name, r.pathWords, c.text, c.words); err != nil {
				return err
			}
		}
	}
	return nil
}

// storeFile replaces a file's row and chunks, and returns the chunks' ids.
func (w *writer) storeFile(r record) ([]int64, error) {
	if err := w.begin(); err != nil {
		return nil, err
	}
	if r.known != nil {
		if err := w.deleteChunks(r.known.id); err != nil {
			return nil, err
		}
	}
	var id int64
	err := w.stmt["upsertFile"].QueryRowContext(w.ctx,
		r.rel, r.size, r.mtime, r.hash, r.lang, r.skip, r.idents).Scan(&id)
	if err != nil {
		return nil, w.ix.fail("index write", err)
	}
	ids := make([]int64, len(r.chunks))
	for i, c := range r.chunks {
		res, err := w.exec("insertChunk", id, c.start+1, c.end+1, c.kind, c.symbol, c.sig, c.text, c.hash)
		if err != nil {
			return nil, err
		}
		if ids[i], err = res.LastInsertId(); err != nil {
			return nil, w.ix.fail("index write", err)
		}
	}
	w.changed = true
	return ids, nil
}

func (w *writer) deleteChunks(fileID int64) error {
	if err := w.noteDeleted(fileID); err != nil {
		return err
	}
	if _, err := w.exec("deleteFTS", fileID); err != nil {
		return err
	}
	res, err := w.exec("deleteChunks", fileID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		w.changed, w.dropped = true, true
	}
	return nil
}

func (w *writer) deleteFile(id int64) error {
	if err := w.deleteChunks(id); err != nil {
		return err
	}
	_, err := w.exec("deleteFile", id)
	return err
}

// remove drops files from the index in one transaction.
func (w *writer) remove(ids []int64) error {
	for _, id := range ids {
		if err := w.deleteFile(id); err != nil {
			return err
		}
	}
	return w.commit()
}

// collectGarbage drops vectors no chunk needs any more. It runs after the
// new chunks are in, so a moved or renamed chunk keeps its vector.
func (w *writer) collectGarbage() error {
	if !w.dropped {
		return nil
	}
	if err := w.execSQL(`DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.hash = vectors.hash)`); err != nil {
		return err
	}
	return w.commit()
}

func (w *writer) setMeta(key, value string) error {
	_, err := w.exec("setMeta", key, value)
	return err
}

// finish records the time of the completed update, and that every file is
// now in the current chunk format.
func (w *writer) finish() error {
	if err := w.setMeta("updated", strconv.FormatInt(time.Now().Unix(), 10)); err != nil {
		return err
	}
	if err := w.setMeta("chunk_format", chunkFormat); err != nil {
		return err
	}
	return w.commit()
}

// knownFiles loads what the index knows of every file, and reports
// whether the index was made in another chunk format: then every file is
// marked stale.
func (ix *Index) knownFiles(ctx context.Context) (known map[string]*fileState, stale bool, err error) {
	meta, err := ix.meta(ctx)
	if err != nil {
		return nil, false, err
	}
	stale = oldFormat(meta)
	rows, err := ix.db.QueryContext(ctx, `SELECT id, path, size, mtime, hash, skip FROM files`)
	if err != nil {
		return nil, false, ix.fail("read index", err)
	}
	defer rows.Close()
	known = map[string]*fileState{}
	for rows.Next() {
		var path string
		st := &fileState{stale: stale}
		if err := rows.Scan(&st.id, &path, &st.size, &st.mtime, &st.hash, &st.skip); err != nil {
			return nil, false, ix.fail("read index", err)
		}
		known[path] = st
	}
	return known, stale && len(known) > 0, ix.fail("read index", rows.Err())
}
