package session

import (
	"testing"

	"github.com/ternhq/tern/models"
)

// TestSubMessagesStayOutOfTheHistory: a subagent's conversation is kept in
// the session under its call, in order, and never becomes part of what
// the main model is sent.
func TestSubMessagesStayOutOfTheHistory(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "qwen3:8b", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(ctx, sess.ID, models.Message{Role: models.RoleUser, Content: "how does it work?"}); err != nil {
		t.Fatal(err)
	}
	sub := []models.Message{
		{Role: models.RoleUser, Content: "Task: find the loop"},
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{{ID: "c1", Name: "read_file", Arguments: []byte(`{"path":"a.go"}`)}}},
		{Role: models.RoleTool, ToolName: "read_file", ToolCallID: "c1", Content: "1\tpackage a"},
		{Role: models.RoleAssistant, Content: "a.go:1 — package a"},
	}
	for _, m := range sub {
		if err := s.AppendSubMessage(ctx, sess.ID, "call_7", m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AppendSubMessage(ctx, sess.ID, "call_9", models.Message{Role: models.RoleUser, Content: "other"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.SubMessages(ctx, sess.ID, "call_7")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sub) {
		t.Fatalf("got %d messages, want %d", len(got), len(sub))
	}
	for i, m := range got {
		if m.Role != sub[i].Role || m.Content != sub[i].Content || len(m.ToolCalls) != len(sub[i].ToolCalls) || m.Seq != i+1 {
			t.Errorf("message %d = %+v, want %+v", i, m, sub[i])
		}
	}
	hist, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 {
		t.Errorf("the session history holds %d messages, want only the user's 1", len(hist))
	}
	if none, err := s.SubMessages(ctx, sess.ID, "call_1"); err != nil || len(none) != 0 {
		t.Errorf("an unknown call: %v, %v", none, err)
	}
	if err := s.AppendSubMessage(ctx, "nope", "c", models.Message{Role: models.RoleUser}); err == nil {
		t.Error("a message for no session was stored")
	}
}
