package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ToolCallRecord is one tool call as it ran.
type ToolCallRecord struct {
	CallID, Name string
	// Args are the arguments the tool ran with, kept byte for byte.
	Args    json.RawMessage
	Output  string
	IsError bool
	// Summary is the one line shown to people.
	Summary  string
	Duration time.Duration
	// Repair says how the call was recovered from the model's reply:
	// "native" or "" for a structured call, else the repair that found it
	// ("fenced-json", …).
	Repair string
}

// RecordToolCall records a tool call of the session.
func (s *Store) RecordToolCall(ctx context.Context, sessionID string, r ToolCallRecord) error {
	now := s.now().UnixMilli()
	err := s.write(ctx, sessionID, now, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tool_calls
			(session_id, created, call_id, name, args, output, is_error, summary, duration_ns, repair)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sessionID, now, r.CallID, r.Name, string(r.Args), r.Output, r.IsError, r.Summary,
			int64(r.Duration), r.Repair)
		return err
	}, "")
	if err != nil {
		return fmt.Errorf("record tool call %s of session %s: %w", r.Name, sessionID, err)
	}
	return nil
}

// ToolCalls returns the session's recorded tool calls, oldest first.
func (s *Store) ToolCalls(ctx context.Context, sessionID string) ([]ToolCallRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT call_id, name, args, output, is_error, summary,
		duration_ns, repair FROM tool_calls WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("tool calls of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var list []ToolCallRecord
	for rows.Next() {
		var r ToolCallRecord
		var args string
		var ns int64
		if err := rows.Scan(&r.CallID, &r.Name, &args, &r.Output, &r.IsError, &r.Summary, &ns, &r.Repair); err != nil {
			return nil, fmt.Errorf("tool calls of session %s: %w", sessionID, err)
		}
		if args != "" {
			r.Args = json.RawMessage(args)
		}
		r.Duration = time.Duration(ns)
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tool calls of session %s: %w", sessionID, err)
	}
	return list, nil
}

// TurnMetrics are what one model reply cost, as the server reported it,
// next to tern's own estimate of the prompt.
type TurnMetrics struct {
	Model  string
	NumCtx int
	// Estimate is tern's local count of the prompt's tokens.
	Estimate int
	// PromptTokens is what the server evaluated, after any truncation.
	PromptTokens, EvalTokens                             int
	Duration, PromptDuration, EvalDuration, LoadDuration time.Duration
	// Truncated marks a prompt the server cut to fit num_ctx.
	Truncated  bool
	DoneReason string
}

// RecordTurn records the metrics of one model reply and adds its token
// counts to the session's totals.
func (s *Store) RecordTurn(ctx context.Context, sessionID string, m TurnMetrics) error {
	now := s.now().UnixMilli()
	err := s.write(ctx, sessionID, now, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO turn_metrics
			(session_id, created, model, num_ctx, estimate, prompt_tokens, eval_tokens,
			 duration_ns, prompt_ns, eval_ns, load_ns, truncated, done_reason)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sessionID, now, m.Model, m.NumCtx, m.Estimate, m.PromptTokens, m.EvalTokens,
			int64(m.Duration), int64(m.PromptDuration), int64(m.EvalDuration), int64(m.LoadDuration),
			m.Truncated, m.DoneReason)
		return err
	}, `prompt_tokens = prompt_tokens + ?, eval_tokens = eval_tokens + ?`, m.PromptTokens, m.EvalTokens)
	if err != nil {
		return fmt.Errorf("record turn of session %s: %w", sessionID, err)
	}
	return nil
}

// Turns returns the session's recorded turn metrics, oldest first.
func (s *Store) Turns(ctx context.Context, sessionID string) ([]TurnMetrics, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT model, num_ctx, estimate, prompt_tokens, eval_tokens,
		duration_ns, prompt_ns, eval_ns, load_ns, truncated, done_reason
		FROM turn_metrics WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("turns of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var list []TurnMetrics
	for rows.Next() {
		var m TurnMetrics
		var d, pd, ed, ld int64
		err := rows.Scan(&m.Model, &m.NumCtx, &m.Estimate, &m.PromptTokens, &m.EvalTokens,
			&d, &pd, &ed, &ld, &m.Truncated, &m.DoneReason)
		if err != nil {
			return nil, fmt.Errorf("turns of session %s: %w", sessionID, err)
		}
		m.Duration, m.PromptDuration = time.Duration(d), time.Duration(pd)
		m.EvalDuration, m.LoadDuration = time.Duration(ed), time.Duration(ld)
		list = append(list, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("turns of session %s: %w", sessionID, err)
	}
	return list, nil
}

// SetMeta sets a key of the session's own settings (the unlocked tier, the
// checkpoint ref, the token-count calibration, …), replacing any old value.
// It does not count as activity: Updated stays as it was.
func (s *Store) SetMeta(ctx context.Context, sessionID, key, value string) error {
	res, err := s.db.ExecContext(ctx, `INSERT INTO session_meta (session_id, key, value)
		SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?1)
		ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value`, sessionID, key, value)
	if err != nil {
		return fmt.Errorf("set %s of session %s: %w", key, sessionID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("set %s of session %s: %w", key, sessionID, err)
	} else if n == 0 {
		return fmt.Errorf("set %s: %w", key, notFound(sessionID))
	}
	return nil
}

// Meta returns the value of a key of the session's settings, and whether it
// is set.
func (s *Store) Meta(ctx context.Context, sessionID, key string) (string, bool, error) {
	var value string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM session_meta WHERE session_id = ? AND key = ?`,
		sessionID, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s of session %s: %w", key, sessionID, err)
	}
	return value, true, nil
}
