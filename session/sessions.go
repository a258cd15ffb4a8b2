package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Session is one conversation, with what a listing shows about it.
type Session struct {
	// ID is "YYYYMMDD-HHMM-xxxx": the local start time to the minute and four
	// random hex digits, e.g. "20261122-0204-a3f9". IDs sort by start time,
	// and Get accepts any unique prefix or suffix ("a3f9").
	ID      string
	Started time.Time
	Updated time.Time
	Model   string
	Dir     string
	// Title is the first user prompt on one line, at most TitleMax runes.
	Title string
	// Turns counts the user messages.
	Turns int
	// PromptTokens and EvalTokens are the sums over the recorded turns.
	PromptTokens, EvalTokens int
}

// TitleMax is the most runes a session title holds.
const TitleMax = 80

const sessionColumns = `id, started, updated, model, dir, title, turns, prompt_tokens, eval_tokens`

// Create starts a new session for model in directory dir.
func (s *Store) Create(ctx context.Context, model, dir string) (Session, error) {
	now := s.now()
	ms := now.UnixMilli()
	for range 20 {
		id := fmt.Sprintf("%s-%04x", now.Format("20060102-1504"), rand.Uint32N(1<<16))
		res, err := s.db.ExecContext(ctx, `INSERT INTO sessions (id, started, updated, model, dir)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, id, ms, ms, model, dir)
		if err != nil {
			return Session{}, fmt.Errorf("create session: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return Session{}, fmt.Errorf("create session: %w", err)
		} else if n == 1 {
			t := time.UnixMilli(ms)
			return Session{ID: id, Started: t, Updated: t, Model: model, Dir: dir}, nil
		}
	}
	return Session{}, errors.New("create session: no free id left for this minute")
}

// Get returns the session whose id is id, or else the one session whose id
// begins or ends with id. It returns an error wrapping ErrNotFound when none
// matches and ErrAmbiguous, naming the candidates, when several do.
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Session{}, fmt.Errorf("%w: no id given", ErrNotFound)
	}
	sess, err := scanSession(s.db.QueryRowContext(ctx,
		`SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	const shown = 5
	matches, err := s.query(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE substr(id, 1, length(?1)) = ?1 OR substr(id, -length(?1)) = ?1
		ORDER BY updated DESC, rowid DESC LIMIT ?2`, id, shown+1)
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	switch len(matches) {
	case 0:
		return Session{}, fmt.Errorf("%w: no session id starts or ends with %q", ErrNotFound, id)
	case 1:
		return matches[0], nil
	}
	ids := make([]string, 0, shown)
	for _, m := range matches[:min(len(matches), shown)] {
		ids = append(ids, m.ID)
	}
	more := ""
	if len(matches) > shown {
		more = ", …"
	}
	return Session{}, fmt.Errorf("%w: %q matches %s%s; give more of the id", ErrAmbiguous, id, strings.Join(ids, ", "), more)
}

// Latest returns the most recently updated session, or an error wrapping
// ErrNotFound when there is none.
func (s *Store) Latest(ctx context.Context) (Session, error) {
	sess, err := scanSession(s.db.QueryRowContext(ctx,
		`SELECT `+sessionColumns+` FROM sessions ORDER BY updated DESC, rowid DESC LIMIT 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("%w: there are no sessions yet", ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("latest session: %w", err)
	}
	return sess, nil
}

// List returns up to limit sessions, most recently updated first; a limit
// of zero or less returns them all.
func (s *Store) List(ctx context.Context, limit int) ([]Session, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	list, err := s.query(ctx, `SELECT `+sessionColumns+` FROM sessions
		ORDER BY updated DESC, rowid DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return list, nil
}

// Delete removes a session and everything recorded for it. id must be exact.
func (s *Store) Delete(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	} else if n == 0 {
		return notFound(id)
	}
	return nil
}

func (s *Store) query(ctx context.Context, query string, args ...any) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, sess)
	}
	return list, rows.Err()
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanSession(r scanner) (Session, error) {
	var sess Session
	var started, updated int64
	err := r.Scan(&sess.ID, &started, &updated, &sess.Model, &sess.Dir, &sess.Title,
		&sess.Turns, &sess.PromptTokens, &sess.EvalTokens)
	sess.Started, sess.Updated = time.UnixMilli(started), time.UnixMilli(updated)
	return sess, err
}

// notFound is the error for an exact id that names no session.
func notFound(id string) error {
	return fmt.Errorf("%w: no session has id %q", ErrNotFound, id)
}

// titleOf makes a session title of a user prompt: its words on one line,
// cut to TitleMax runes with an ellipsis.
func titleOf(prompt string) string {
	line := strings.Join(strings.Fields(prompt), " ")
	if utf8.RuneCountInString(line) <= TitleMax {
		return line
	}
	cut := []rune(line)[:TitleMax-1]
	return strings.TrimRightFunc(string(cut), unicode.IsSpace) + "…"
}
