package session

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ternhq/tern/models"
)

// A subagent (explore) holds a conversation of its own inside a session.
// Its messages never join the session's history, which is what the main
// model is sent; they are kept here, under the id of the call that ran
// the subagent, for people to read.

// AppendSubMessage adds m to the conversation of the subagent run by the
// session's call callID.
func (s *Store) AppendSubMessage(ctx context.Context, sessionID, callID string, m models.Message) error {
	calls, err := encodeCalls(m.ToolCalls)
	if err != nil {
		return fmt.Errorf("append subagent message to session %s: %w", sessionID, err)
	}
	now := s.now().UnixMilli()
	err = s.write(ctx, sessionID, now, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sub_messages
			(session_id, call_id, seq, created, role, content, thinking, tool_calls, tool_name, tool_call_id)
			VALUES (?1, ?2, (SELECT coalesce(max(seq), 0) + 1 FROM sub_messages WHERE session_id = ?1 AND call_id = ?2),
			?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
			sessionID, callID, now, string(m.Role), m.Content, m.Thinking, nullText(calls), m.ToolName, m.ToolCallID)
		return err
	}, "")
	if err != nil {
		return fmt.Errorf("append subagent message to session %s: %w", sessionID, err)
	}
	return nil
}

// SubMessages returns the conversation of the subagent run by the
// session's call callID, oldest first; none when there was no such run.
func (s *Store) SubMessages(ctx context.Context, sessionID, callID string) ([]StoredMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, created, role, content, thinking, tool_calls, tool_name, tool_call_id
		FROM sub_messages WHERE session_id = ? AND call_id = ? ORDER BY seq`, sessionID, callID)
	if err != nil {
		return nil, fmt.Errorf("subagent messages of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var list []StoredMessage
	for rows.Next() {
		var sm StoredMessage
		var created int64
		var role string
		var calls sql.RawBytes
		if err := rows.Scan(&sm.Seq, &created, &role, &sm.Content, &sm.Thinking, &calls, &sm.ToolName, &sm.ToolCallID); err != nil {
			return nil, fmt.Errorf("subagent messages of session %s: %w", sessionID, err)
		}
		sm.Time, sm.Role = time.UnixMilli(created), models.Role(role)
		if sm.ToolCalls, err = decodeCalls(calls); err != nil {
			return nil, fmt.Errorf("subagent messages of session %s: message %d: %w", sessionID, sm.Seq, err)
		}
		list = append(list, sm)
	}
	return list, rows.Err()
}
