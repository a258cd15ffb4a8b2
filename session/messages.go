package session

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ternhq/tern/models"
)

// StoredMessage is a message as the store holds it.
type StoredMessage struct {
	models.Message
	// Seq orders the messages of a session, superseded ones included.
	Seq  int
	Time time.Time
	// Superseded marks a message a compaction replaced: it is no longer
	// sent to the model, but kept for the record.
	Superseded bool
}

// AppendMessage adds m to the end of the session's active history. The first
// user message with text becomes the session's title; every user message
// counts as a turn.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m models.Message) error {
	calls, err := encodeCalls(m.ToolCalls)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	turns, title := 0, ""
	if m.Role == models.RoleUser {
		turns, title = 1, titleOf(cmp.Or(m.Shown, m.Content))
	}
	now := s.now().UnixMilli()
	err = s.write(ctx, sessionID, now, func(tx *sql.Tx) error {
		return insertMessage(ctx, tx, sessionID, now, m, calls)
	}, `turns = turns + ?, title = CASE WHEN title = '' THEN ? ELSE title END`, turns, title)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	return nil
}

// ReplaceHistory makes msgs the session's active history, as a compaction
// does: the messages active until now are marked superseded, kept in the
// store, and msgs follow them. It is all or nothing.
func (s *Store) ReplaceHistory(ctx context.Context, sessionID string, msgs []models.Message) error {
	encoded := make([][]byte, len(msgs))
	for i, m := range msgs {
		calls, err := encodeCalls(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("replace history of session %s: message %d: %w", sessionID, i, err)
		}
		encoded[i] = calls
	}
	now := s.now().UnixMilli()
	err := s.write(ctx, sessionID, now, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE messages SET superseded = 1
			WHERE session_id = ? AND superseded = 0`, sessionID)
		if err != nil {
			return err
		}
		for i, m := range msgs {
			if err := insertMessage(ctx, tx, sessionID, now, m, encoded[i]); err != nil {
				return err
			}
		}
		return nil
	}, "")
	if err != nil {
		return fmt.Errorf("replace history of session %s: %w", sessionID, err)
	}
	return nil
}

// write runs fn in a write transaction after marking the session updated at
// now, and applying the assignments of set (with its arguments) to the
// session's row; a session that does not exist is ErrNotFound.
func (s *Store) write(ctx context.Context, sessionID string, now int64, fn func(*sql.Tx) error, set string, args ...any) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if set != "" {
		set = ", " + set
	}
	args = append([]any{now}, append(args, sessionID)...)
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated = max(updated, ?)`+set+` WHERE id = ?`, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return notFound(sessionID)
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func insertMessage(ctx context.Context, tx *sql.Tx, sessionID string, now int64, m models.Message, calls []byte) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO messages
		(session_id, seq, created, role, content, thinking, tool_calls, tool_name, tool_call_id, shown, model)
		VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
		sessionID, now, string(m.Role), m.Content, m.Thinking, nullText(calls), m.ToolName, m.ToolCallID, m.Shown, m.Model)
	return err
}

// nullText stores b as TEXT, or NULL when empty.
func nullText(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// Messages returns the session's active history, oldest first: what the
// model is sent on the next turn.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]models.Message, error) {
	stored, err := s.messages(ctx, sessionID, `AND superseded = 0`)
	if err != nil {
		return nil, err
	}
	msgs := make([]models.Message, len(stored))
	for i, sm := range stored {
		msgs[i] = sm.Message
	}
	return msgs, nil
}

// AllMessages returns every message the session ever had, superseded ones
// included, in the order they were written.
func (s *Store) AllMessages(ctx context.Context, sessionID string) ([]StoredMessage, error) {
	return s.messages(ctx, sessionID, "")
}

func (s *Store) messages(ctx context.Context, sessionID, filter string) ([]StoredMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, created, superseded, role, content, thinking,
		tool_calls, tool_name, tool_call_id, shown, model FROM messages WHERE session_id = ? `+filter+` ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("messages of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var list []StoredMessage
	for rows.Next() {
		var sm StoredMessage
		var created int64
		var role string
		var calls sql.RawBytes
		err := rows.Scan(&sm.Seq, &created, &sm.Superseded, &role, &sm.Content, &sm.Thinking,
			&calls, &sm.ToolName, &sm.ToolCallID, &sm.Shown, &sm.Model)
		if err != nil {
			return nil, fmt.Errorf("messages of session %s: %w", sessionID, err)
		}
		sm.Time, sm.Role = time.UnixMilli(created), models.Role(role)
		if sm.ToolCalls, err = decodeCalls(calls); err != nil {
			return nil, fmt.Errorf("messages of session %s: message %d: %w", sessionID, sm.Seq, err)
		}
		list = append(list, sm)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("messages of session %s: %w", sessionID, err)
	}
	if len(list) == 0 {
		if err := s.exists(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// exists is nil when the session exists, and an error wrapping ErrNotFound
// when it does not.
func (s *Store) exists(ctx context.Context, sessionID string) error {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(sessionID)
	}
	if err != nil {
		return fmt.Errorf("session %s: %w", sessionID, err)
	}
	return nil
}

// storedCall is the stored form of a models.ToolCall. Arguments that are a
// JSON value without surrounding space are written in place, so the column
// reads (and json_extract works) as plain JSON; anything else, a small
// model's broken JSON included, is kept as a string in arguments_text. Both
// come back byte for byte: the model must be re-sent exactly what it wrote.
type storedCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments,omitempty"`
	Text *string         `json:"arguments_text,omitempty"`
}

// encodeCalls writes the JSON by hand: encoding/json compacts a RawMessage
// it marshals, which would change the model's bytes.
func encodeCalls(calls []models.ToolCall) ([]byte, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	str := func(v string) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode appends a newline
		return nil
	}
	b.WriteByte('[')
	for i, c := range calls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":`)
		if err := str(c.ID); err != nil {
			return nil, err
		}
		b.WriteString(`,"name":`)
		if err := str(c.Name); err != nil {
			return nil, err
		}
		switch {
		case len(c.Arguments) == 0:
		case json.Valid(c.Arguments) && len(bytes.TrimSpace(c.Arguments)) == len(c.Arguments):
			b.WriteString(`,"arguments":`)
			b.Write(c.Arguments)
		default:
			b.WriteString(`,"arguments_text":`)
			if err := str(string(c.Arguments)); err != nil {
				return nil, err
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func decodeCalls(b []byte) ([]models.ToolCall, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var stored []storedCall
	if err := json.Unmarshal(b, &stored); err != nil {
		return nil, fmt.Errorf("decode tool calls: %w", err)
	}
	calls := make([]models.ToolCall, len(stored))
	for i, c := range stored {
		calls[i] = models.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args}
		if c.Text != nil {
			calls[i].Arguments = json.RawMessage(*c.Text)
		}
	}
	return calls, nil
}
