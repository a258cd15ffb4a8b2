// Package index keeps a searchable catalog of a repository's code: a
// walker that honours ignore files and skips binaries, generated, vendored
// and huge files; a tree-sitter chunker that cuts source along its symbols
// (functions, methods, types, classes, with their doc comments); and a
// SQLite store that is the source of truth for files, chunks, a full-text
// index with identifiers split into words, and embedding vectors keyed by
// chunk hash. Updates are incremental: only changed files are re-read, and
// only new chunk texts are embedded.
//
// The index lives in its own database, <root>/.tern/index.db, so that bulk
// index writes never block the session store, and a broken index can be
// deleted and rebuilt. Retrieval on top of it (ranking, fusion, packing)
// is package rag's job.
//
// index imports models and index/ignore; it must not import agent, rag,
// session, tools, tui or cmd.
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ternhq/tern/index/ignore"
	"github.com/ternhq/tern/statedir"
)

// Errors callers branch on.
var (
	// ErrCorrupt: the database file is damaged or is not a tern index.
	// The message tells the user how to recover.
	ErrCorrupt = errors.New("the index is damaged or is not a tern index: delete .tern/index.db and run tern index again")
	// ErrBusy: another update of the same index is running.
	ErrBusy = errors.New("the index is being updated by another tern; try again when it is done")
)

const (
	// applicationID marks tern index files ("tern" in ASCII).
	applicationID = 0x7465726e
	// schemaVersion changes when the schema does; an index with another
	// version is rebuilt from scratch.
	schemaVersion = 1
	// chunkFormat changes when what the index stores of a file (its
	// language, chunks, words) changes without a change of schema. The
	// next update of an index of another format reads every file again
	// (and so does the one after it, if it is cancelled); the vectors
	// stay, since they are keyed by chunk text.
	chunkFormat = "3"
)

// oldFormat reports an index, known by its meta, made in another chunk
// format than this tern's.
func oldFormat(meta map[string]string) bool { return meta["chunk_format"] != chunkFormat }

// mmapBytes is how much of the database readers map into memory.
const mmapBytes = 1 << 30

// Index is an open repository index. Its methods are safe for concurrent
// use; one Update runs at a time.
type Index struct {
	root  string
	path  string
	db    *sql.DB
	rules *ignore.Rules

	update sync.Mutex

	statsMu sync.Mutex // guards stats
	stats   *corpus
}

// Path is where the index of the repository at root is kept (index.db
// in its state directory, statedir), and whether it exists; it creates
// nothing.
func Path(root string) (path string, exists bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	path, exists, err = statedir.Existing(abs, "index.db")
	if err != nil {
		return filepath.Join(abs, statedir.Name, "index.db"), false
	}
	return path, exists
}

// Open opens the index of the repository at root, creating index.db in
// its state directory (.tern, with a .gitignore that keeps it out of
// git, or tern's own for a read-only one: statedir) when missing.
func Open(ctx context.Context, root string) (*Index, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	path, err := statedir.File(abs, "index.db")
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	return OpenAt(ctx, abs, path)
}

// OpenAt opens the index of the repository at root stored in the database
// file at dbPath, which may live outside the repository.
func OpenAt(ctx context.Context, root, dbPath string) (*Index, error) {
	abs, err := filepath.Abs(root)
	if err == nil {
		// The walk does not follow links, so the root must not be one.
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("open index: %s is not a directory", abs)
	}
	// mmap spares a read system call per page: loading the vectors of a
	// large index reads hundreds of MB.
	dsn := "file:" + dbPath + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
		"&_pragma=mmap_size(" + strconv.Itoa(mmapBytes) + ")&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dbPath, err)
	}
	ix := &Index{root: abs, path: dbPath, db: db, rules: ignore.New(abs)}
	if err := ix.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return ix, nil
}

// Root is the repository directory the index covers.
func (ix *Index) Root() string { return ix.root }

// Close releases the database.
func (ix *Index) Close() error { return ix.db.Close() }

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE files(
	id     INTEGER PRIMARY KEY,
	path   TEXT NOT NULL UNIQUE,
	size   INTEGER NOT NULL,
	mtime  INTEGER NOT NULL,
	hash   BLOB NOT NULL,
	lang   TEXT NOT NULL,
	skip   TEXT NOT NULL DEFAULT '',
	idents TEXT NOT NULL DEFAULT ''
);
CREATE TABLE chunks(
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	file_id    INTEGER NOT NULL,
	start_line INTEGER NOT NULL,
	end_line   INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	symbol     TEXT NOT NULL,
	sig        TEXT NOT NULL,
	text       TEXT NOT NULL,
	hash       BLOB NOT NULL
);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
	name, path, body, words,
	content='', contentless_delete=1, tokenize='porter unicode61'
);
INSERT INTO chunks_fts(chunks_fts, rank) VALUES('rank', 'bm25(6.0, 2.0, 1.0, 1.0)');
INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 33554432);
CREATE TABLE vectors(id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, vec BLOB NOT NULL);
INSERT INTO meta(key, value) VALUES('generation', '0');
`

// prepare checks that the database is a tern index of this schema, and
// creates the schema in an empty one.
func (ix *Index) prepare(ctx context.Context) error {
	var app, version, tables int
	err := ix.db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&app)
	if err == nil {
		err = ix.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version)
	}
	if err == nil {
		err = ix.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables)
	}
	if err != nil {
		return ix.fail("open index", err)
	}
	switch {
	case app == applicationID && version == schemaVersion:
		return nil
	case app == applicationID || app == 0 && tables == 0:
		return ix.create(ctx)
	default:
		return fmt.Errorf("open index %s: %w", ix.path, ErrCorrupt)
	}
}

// create (re)builds the schema, dropping what an older version left.
func (ix *Index) create(ctx context.Context) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return ix.fail("create index", err)
	}
	defer tx.Rollback()
	for _, t := range []string{"chunks_fts", "vectors", "chunks", "files", "meta"} {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
			return ix.fail("create index", err)
		}
	}
	stmts := []string{schema,
		`INSERT INTO meta(key, value) VALUES('chunk_format', '` + chunkFormat + `')`,
		`PRAGMA application_id = ` + strconv.Itoa(applicationID),
		`PRAGMA user_version = ` + strconv.Itoa(schemaVersion)}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return ix.fail("create index", err)
		}
	}
	return ix.fail("create index", tx.Commit())
}

// fail wraps err with what was being done, and turns SQLite's corruption
// codes into ErrCorrupt so the user learns how to recover.
func (ix *Index) fail(doing string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%s %s: %w (%v)", doing, ix.path, ErrCorrupt, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%s: %w", doing, ErrBusy)
		}
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// Status describes an index, for `tern doctor` and `tern index`.
type Status struct {
	Root string
	// Files counts indexed files; Skipped counts files seen but not chunked
	// (binary, generated, minified).
	Files, Skipped int
	Chunks         int
	// Embedded counts chunks that have a vector from Model, of Dim numbers.
	Embedded int
	Model    string
	Dim      int
	// Updated is when the last update finished (zero if none has).
	Updated time.Time
	// Generation changes whenever the indexed content does.
	Generation int64
	// OldFormat: an older tern made the index; the next update reads every
	// file again.
	OldFormat bool
}

// Status reports what the index holds.
func (ix *Index) Status(ctx context.Context) (Status, error) {
	st := Status{Root: ix.root}
	err := ix.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM files WHERE skip = ''),
		(SELECT count(*) FROM files WHERE skip != ''),
		(SELECT count(*) FROM chunks),
		(SELECT count(*) FROM chunks c WHERE EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash))`).
		Scan(&st.Files, &st.Skipped, &st.Chunks, &st.Embedded)
	if err != nil {
		return st, ix.fail("index status", err)
	}
	meta, err := ix.meta(ctx)
	if err != nil {
		return st, err
	}
	st.Model = meta["embed_model"]
	st.Dim, _ = strconv.Atoi(meta["embed_dim"])
	st.Generation, _ = strconv.ParseInt(meta["generation"], 10, 64)
	st.OldFormat = st.Files > 0 && oldFormat(meta)
	if sec, err := strconv.ParseInt(meta["updated"], 10, 64); err == nil {
		st.Updated = time.Unix(sec, 0)
	}
	return st, nil
}

// Embedding returns the model the index's vectors come from and their
// length; an empty model means the index has no vectors.
func (ix *Index) Embedding(ctx context.Context) (model string, dim int, err error) {
	meta, err := ix.meta(ctx)
	if err != nil {
		return "", 0, err
	}
	dim, _ = strconv.Atoi(meta["embed_dim"])
	return meta["embed_model"], dim, nil
}

// Generation returns a number that changes whenever chunks or vectors do,
// so that a reader can tell its cached view is stale.
func (ix *Index) Generation(ctx context.Context) (int64, error) {
	var v string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'generation'`).Scan(&v)
	if err != nil {
		return 0, ix.fail("index generation", err)
	}
	return strconv.ParseInt(v, 10, 64)
}

func (ix *Index) meta(ctx context.Context) (map[string]string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return nil, ix.fail("read index meta", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, ix.fail("read index meta", err)
		}
		m[k] = v
	}
	return m, ix.fail("read index meta", rows.Err())
}
