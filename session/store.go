// Package session is tern's record of its conversations: a SQLite file
// (.tern/tern.db) holding sessions, their messages (every message ever
// written, with the ones a compaction replaced marked superseded), the tool
// calls made, per-turn metrics from the model server, and each model's
// token-count calibration.
//
// Each write is its own short transaction, so a crash loses at most the reply
// in flight, and several goroutines and two processes (a TUI and a
// `tern ask` in the same repository) may share one file. Other packages (the
// index) may keep their own tables in the same file through DB and Migrate.
//
// session imports models and nothing else internal; it must not import
// agent, tools, index, tui or cmd.
package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ternhq/tern/statedir"
)

// Sentinel errors callers branch on. Every returned error wraps one of them
// with the details (the id asked for, the file opened).
var (
	// ErrNotFound: no session has the id asked for, or none exists yet.
	ErrNotFound = errors.New("session not found")
	// ErrAmbiguous: the id given is a prefix or suffix of several sessions.
	ErrAmbiguous = errors.New("ambiguous session id")
	// ErrNotTernDB: the file is not a tern database (another program's
	// SQLite file, or not SQLite at all, or corrupt).
	ErrNotTernDB = errors.New("not a tern database")
	// ErrNewerSchema: the file was written by a newer tern.
	ErrNewerSchema = errors.New("database written by a newer tern")
)

// Store is an open session database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithClock makes the store read the time from now instead of time.Now, so
// tests get deterministic timestamps and ids.
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// The connection settings every pooled connection gets. Writes wait up to
// busy_timeout for another writer (the other process, or another goroutine)
// instead of failing with SQLITE_BUSY; _txlock=immediate makes every
// transaction take the write lock at BEGIN, which avoids the deadlock of two
// readers both upgrading to writers. WAL itself is set once, in Open, after
// the file is known to be tern's: the mode is persistent, and setting it from
// the DSN would convert another program's database before it was checked.
const connParams = "_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"

// Open opens the session database at path, creating it and its parent
// directory if needed, and brings its schema up to date. A file that is not
// a tern database, or one written by a newer tern, is left untouched and
// reported with an error that names it.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if path == "" {
		return nil, errors.New("open session store: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("open session store %s: %w", abs, err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open session store %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// OpenWorkspace opens the session database of the workspace at root:
// <root>/.tern/tern.db. It creates <root>/.tern with a .gitignore holding
// "*", so nothing of tern's shows up in git; an existing .gitignore is kept
// as the user left it. A .tern, tern.db or SQLite companion file that is a
// symbolic link is refused (statedir), so a repository cannot redirect the
// store outside the workspace.
func OpenWorkspace(ctx context.Context, root string, opts ...Option) (*Store, error) {
	path, err := statedir.File(root, "tern.db")
	if err != nil {
		return nil, err
	}
	return Open(ctx, path, opts...)
}

// OpenExisting is OpenWorkspace for a command that only looks (tern
// sessions, diff, undo, completions, an editor's session list): when the
// workspace has no session database yet it creates nothing, not even
// .tern, and returns ok false with a nil Store.
func OpenExisting(ctx context.Context, root string, opts ...Option) (s *Store, ok bool, err error) {
	if _, exists, err := statedir.Existing(root, "tern.db"); err != nil || !exists {
		return nil, false, err
	}
	s, err = OpenWorkspace(ctx, root, opts...)
	return s, err == nil, err
}

// dsn is the driver's name for the file at abs: a file: URI, so that a path
// holding '?', '#' or '%' is escaped rather than read as parameters.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/…
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: connParams}
	return u.String()
}

// Close closes the database. The last connection to close checkpoints the
// write-ahead log into the file.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close session store %s: %w", s.path, err)
	}
	return nil
}

// DB returns the underlying pool, so other packages may keep their own tables
// in the same file. Its connections have foreign keys on and take the write
// lock at BEGIN. PRAGMA user_version and application_id belong to this
// package: keep another component's schema version with Migrate.
func (s *Store) DB() *sql.DB { return s.db }

// Path is the absolute name of the database file.
func (s *Store) Path() string { return s.path }

// prepare checks that the file is tern's (or empty), switches it to WAL and
// migrates the schema. Until the file is in WAL mode, two processes opening
// it at once can meet SQLite's deadlock guard, which answers SQLITE_BUSY at
// once instead of waiting; prepare then tries again, for up to setupWait.
func (s *Store) prepare(ctx context.Context) error {
	deadline := time.Now().Add(setupWait)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		err := s.setup(ctx)
		if err == nil {
			return nil
		}
		if sqliteCode(err) != sqlite3.SQLITE_BUSY || time.Now().Add(pause).After(deadline) {
			return s.openError(err)
		}
		select {
		case <-ctx.Done():
			return s.openError(err)
		case <-time.After(pause):
		}
	}
}

// setupWait bounds how long prepare retries a busy file.
const setupWait = 5 * time.Second

func (s *Store) setup(ctx context.Context) error {
	st, err := readState(ctx, s.db)
	if err != nil {
		return err
	}
	if err := s.checkState(st); err != nil {
		return err
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return fmt.Errorf("set WAL mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open session store %s: journal mode is %q, not wal", s.path, mode)
	}
	if st.version == len(migrations) {
		return nil
	}
	return s.migrate(ctx)
}

// openError explains a failure to read the file. A file SQLite does not
// recognise is the one case the user can fix without tern's help.
func (s *Store) openError(err error) error {
	if errors.Is(err, ErrNotTernDB) || errors.Is(err, ErrNewerSchema) {
		return err
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return fmt.Errorf("open session store %s: %w (%v); move the file away and tern will start a new one",
			s.path, ErrNotTernDB, err)
	}
	return fmt.Errorf("open session store %s: %w", s.path, err)
}

// sqliteCode is the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}
