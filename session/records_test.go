package session

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestToolCallsRoundTrip(t *testing.T) {
	c := newClock()
	s := mustOpen(t, WithClock(c.Now))
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCallRecord{
		{CallID: "call_1", Name: "grep", Args: json.RawMessage(`{"pattern": "x",  "path":"."}`),
			Output: "a.go:1: x", Summary: "1 match", Duration: 12 * time.Millisecond, Repair: "native"},
		{Name: "read_file", Args: json.RawMessage(`{"path":"missing.go"}`), Output: "no such file: missing.go",
			IsError: true, Summary: "error", Duration: 300 * time.Microsecond, Repair: "fenced-json"},
		{Name: "git_status"},
	}
	for _, r := range want {
		if err := s.RecordToolCall(ctx, sess.ID, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ToolCalls(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if after, _ := s.Get(ctx, sess.ID); !after.Updated.After(sess.Updated) {
		t.Error("recording a tool call did not mark the session updated")
	}
	if err := s.RecordToolCall(ctx, "nope", want[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("RecordToolCall on an unknown session: %v, want ErrNotFound", err)
	}
}

func TestTurnsAddUpInTheListing(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "qwen3:8b", "/d")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Create(ctx, "qwen3:8b", "/d")
	if err != nil {
		t.Fatal(err)
	}
	want := []TurnMetrics{
		{Model: "qwen3:8b", NumCtx: 8192, Estimate: 1510, PromptTokens: 1498, EvalTokens: 120,
			Duration: 3 * time.Second, PromptDuration: 800 * time.Millisecond, EvalDuration: 2 * time.Second,
			LoadDuration: 150 * time.Millisecond, DoneReason: "stop"},
		{Model: "qwen3:8b", NumCtx: 8192, Estimate: 9000, PromptTokens: 8192, EvalTokens: 7,
			Truncated: true, DoneReason: "length"},
	}
	for _, m := range want {
		if err := s.RecordTurn(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordTurn(ctx, other.ID, TurnMetrics{PromptTokens: 5, EvalTokens: 5}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Turns(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn metrics (-want +got):\n%s", diff)
	}
	listed, err := s.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if listed.PromptTokens != 1498+8192 || listed.EvalTokens != 127 {
		t.Errorf("session totals = %d prompt, %d eval; want %d, %d",
			listed.PromptTokens, listed.EvalTokens, 1498+8192, 127)
	}
}

func TestMeta(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Meta(ctx, sess.ID, "tier"); ok || err != nil {
		t.Errorf("unset key: ok=%v err=%v", ok, err)
	}
	for _, v := range []string{"1", "2"} {
		if err := s.SetMeta(ctx, sess.ID, "tier", v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetMeta(ctx, sess.ID, "calibration", "1.07"); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"tier": "2", "calibration": "1.07"} {
		if v, ok, err := s.Meta(ctx, sess.ID, key); v != want || !ok || err != nil {
			t.Errorf("Meta(%s) = %q, %v, %v; want %q", key, v, ok, err, want)
		}
	}
	if err := s.SetMeta(ctx, "nope", "tier", "1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetMeta on an unknown session: %v, want ErrNotFound", err)
	}
}
