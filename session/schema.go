package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// applicationID marks a SQLite file as tern's ("tern" in ASCII), in the
// header field SQLite reserves for that purpose.
const applicationID = 0x7465726e

// migrations are the schema steps, in order; PRAGMA user_version is how many
// have run. Append new steps; never edit one that has shipped.
//
// Times are Unix milliseconds and durations nanoseconds, both INTEGER.
var migrations = []string{
	// 1: the first schema.
	`
CREATE TABLE sessions (
	id            TEXT PRIMARY KEY,
	started       INTEGER NOT NULL,
	updated       INTEGER NOT NULL,
	model         TEXT NOT NULL DEFAULT '',
	dir           TEXT NOT NULL DEFAULT '',
	title         TEXT NOT NULL DEFAULT '',
	turns         INTEGER NOT NULL DEFAULT 0,
	prompt_tokens INTEGER NOT NULL DEFAULT 0,
	eval_tokens   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_by_updated ON sessions(updated);

-- Every message ever written. A compaction marks the active ones superseded
-- and writes the new history after them; seq keeps increasing.
CREATE TABLE messages (
	session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq          INTEGER NOT NULL,
	created      INTEGER NOT NULL,
	superseded   INTEGER NOT NULL DEFAULT 0,
	role         TEXT NOT NULL,
	content      TEXT NOT NULL DEFAULT '',
	thinking     TEXT NOT NULL DEFAULT '',
	tool_calls   TEXT,
	tool_name    TEXT NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	UNIQUE (session_id, seq)
);
CREATE INDEX messages_active ON messages(session_id, seq) WHERE superseded = 0;

CREATE TABLE tool_calls (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	created     INTEGER NOT NULL,
	call_id     TEXT NOT NULL DEFAULT '',
	name        TEXT NOT NULL,
	args        TEXT NOT NULL DEFAULT '',
	output      TEXT NOT NULL DEFAULT '',
	is_error    INTEGER NOT NULL DEFAULT 0,
	summary     TEXT NOT NULL DEFAULT '',
	duration_ns INTEGER NOT NULL DEFAULT 0,
	repair      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tool_calls_by_session ON tool_calls(session_id, id);

CREATE TABLE turn_metrics (
	id            INTEGER PRIMARY KEY,
	session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	created       INTEGER NOT NULL,
	model         TEXT NOT NULL DEFAULT '',
	num_ctx       INTEGER NOT NULL DEFAULT 0,
	estimate      INTEGER NOT NULL DEFAULT 0,
	prompt_tokens INTEGER NOT NULL DEFAULT 0,
	eval_tokens   INTEGER NOT NULL DEFAULT 0,
	duration_ns   INTEGER NOT NULL DEFAULT 0,
	prompt_ns     INTEGER NOT NULL DEFAULT 0,
	eval_ns       INTEGER NOT NULL DEFAULT 0,
	load_ns       INTEGER NOT NULL DEFAULT 0,
	truncated     INTEGER NOT NULL DEFAULT 0,
	done_reason   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX turn_metrics_by_session ON turn_metrics(session_id, id);

CREATE TABLE session_meta (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	value      TEXT NOT NULL,
	PRIMARY KEY (session_id, key)
) WITHOUT ROWID;

-- Schema versions of other components sharing the file (see Store.Migrate).
CREATE TABLE schema_versions (
	component TEXT PRIMARY KEY,
	version   INTEGER NOT NULL
) WITHOUT ROWID;
`,
	// 2: the messages of subagents (explore), kept apart from the
	// session's history under the id of the call that ran them.
	`
CREATE TABLE sub_messages (
	session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	call_id      TEXT NOT NULL,
	seq          INTEGER NOT NULL,
	created      INTEGER NOT NULL,
	role         TEXT NOT NULL,
	content      TEXT NOT NULL DEFAULT '',
	thinking     TEXT NOT NULL DEFAULT '',
	tool_calls   TEXT,
	tool_name    TEXT NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	UNIQUE (session_id, call_id, seq)
);
`,
	// 3: what the user is shown of a user message whose content wraps
	// their words in tern's instructions (plan mode).
	`ALTER TABLE messages ADD COLUMN shown TEXT NOT NULL DEFAULT '';`,
	// 4: the model that wrote each assistant message, which a turn that
	// escalated to another model makes worth keeping ('' for messages
	// written before).
	`
ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT '';
`,
}

// dbState is what the file's header and catalogue say about it.
type dbState struct {
	appID   int
	version int
	objects int // tables, indexes, views and triggers
}

// querier is what readState needs of a pool or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readState(ctx context.Context, q querier) (dbState, error) {
	var st dbState
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version),
		(SELECT count(*) FROM sqlite_schema)`).Scan(&st.appID, &st.version, &st.objects)
	if err != nil {
		return st, fmt.Errorf("read schema version: %w", err)
	}
	return st, nil
}

// checkState accepts an empty file or one of tern's no newer than this code.
func (s *Store) checkState(st dbState) error {
	switch {
	case st.appID == applicationID && st.version > len(migrations):
		return fmt.Errorf("open session store %s: %w (schema version %d, this tern knows up to %d); upgrade tern, or move the file away to start a new one",
			s.path, ErrNewerSchema, st.version, len(migrations))
	case st.appID == applicationID:
		return nil
	case st.appID == 0 && st.version == 0 && st.objects == 0:
		return nil // a new file
	}
	return fmt.Errorf("open session store %s: %w (it is another program's SQLite file); move it away and tern will start a new one",
		s.path, ErrNotTernDB)
}

// migrate runs the missing schema steps in one write transaction. It reads
// the version again inside the transaction: another process may have
// migrated the file since Open first looked.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	st, err := readState(ctx, tx)
	if err != nil {
		return err
	}
	if err := s.checkState(st); err != nil {
		return err
	}
	for v := st.version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate to schema version %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no parameters; both values are integers of ours.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d",
		applicationID, len(migrations))); err != nil {
		return fmt.Errorf("migrate: set version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Migrate brings another component's tables in this file up to date: it runs
// steps[v:] in one transaction, where v is how many steps ran before, and
// records len(steps). Each step is SQL text that may hold several
// statements. Append steps; never edit one that has shipped. A recorded
// version above len(steps) means a newer tern wrote the file, and is an
// error wrapping ErrNewerSchema.
func (s *Store) Migrate(ctx context.Context, component string, steps []string) error {
	if component == "" {
		return errors.New("migrate: empty component name")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	defer tx.Rollback()
	var v int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_versions WHERE component = ?`, component).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	if v > len(steps) {
		return fmt.Errorf("migrate %s in %s: %w (schema version %d, this tern knows up to %d); upgrade tern, or move the file away to start a new one",
			component, s.path, ErrNewerSchema, v, len(steps))
	}
	if v == len(steps) {
		return nil
	}
	for i := v; i < len(steps); i++ {
		if _, err := tx.ExecContext(ctx, steps[i]); err != nil {
			return fmt.Errorf("migrate %s to schema version %d: %w", component, i+1, err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO schema_versions (component, version) VALUES (?, ?)
		ON CONFLICT (component) DO UPDATE SET version = excluded.version`, component, len(steps))
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	return nil
}
