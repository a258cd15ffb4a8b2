package session

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ternhq/tern/models"
)

// conversation is a short session with every kind of message, and tool-call
// arguments whose bytes a re-encoding would change.
var conversation = []models.Message{
	{Role: models.RoleSystem, Content: "You are tern, a coding agent."},
	{Role: models.RoleUser, Content: "Where is the config parsed? Look for <Config> & friends."},
	{Role: models.RoleAssistant, Thinking: "Search first.", ToolCalls: []models.ToolCall{
		{ID: "call_1", Name: "grep", Arguments: json.RawMessage(`{"pattern": "parseConfig", "path":"./", "max":  20}`)},
		{ID: "call_2", Name: "read_file", Arguments: json.RawMessage(`{"z_last":1,"a_first":{"y":[1, 2],"b":"<&>"}}`)},
		{Name: "glob", Arguments: json.RawMessage(`{"pattern": "*.go"`)}, // broken JSON, as small models write it
		{ID: "call_4", Name: "list_dir", Arguments: json.RawMessage(` {"path":"."}` + "\n")},
		{ID: "call_5", Name: "git_status"},
		{ID: "call_6", Name: "grep", Arguments: json.RawMessage(`"{\"pattern\":\"x\"}"`)}, // stringified
	}},
	{Role: models.RoleTool, ToolName: "grep", ToolCallID: "call_1", Content: "config/parse.go:12: func parseConfig(r io.Reader) (*Config, error) {"},
	{Role: models.RoleTool, ToolName: "read_file", ToolCallID: "call_2", Content: "package config\n\n\tunicode: ✓ 日本語\n"},
	{Role: models.RoleAssistant, Content: "It is parsed in `config/parse.go`.", Model: "qwen3:30b-a3b"}, // an escalation's
}

func TestMessagesRoundTrip(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range conversation {
		if err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation, got); diff != "" {
		t.Errorf("messages changed on the way through the store (-want +got):\n%s", diff)
	}
	// cmp compares RawMessage as bytes, but say it plainly for the arguments.
	for i, c := range conversation[2].ToolCalls {
		if g := string(got[2].ToolCalls[i].Arguments); g != string(c.Arguments) {
			t.Errorf("call %d arguments = %q, want byte-identical %q", i, g, c.Arguments)
		}
	}
	// The column stays plain JSON where the arguments are JSON.
	var path string
	err = s.DB().QueryRowContext(ctx, `SELECT json_extract(tool_calls, '$[0].arguments.path')
		FROM messages WHERE session_id = ? AND seq = 3`, sess.ID).Scan(&path)
	if err != nil || path != "./" {
		t.Errorf("json_extract of the stored call = %q, %v", path, err)
	}
}

func TestMessagesOfAnEmptyOrUnknownSession(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Messages(ctx, sess.ID); err != nil || len(got) != 0 {
		t.Errorf("Messages of a new session = %v, %v", got, err)
	}
	if _, err := s.Messages(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Messages of an unknown session: %v, want ErrNotFound", err)
	}
	err = s.AppendMessage(ctx, "nope", models.Message{Role: models.RoleUser, Content: "hi"})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("AppendMessage to an unknown session: %v, want ErrNotFound", err)
	}
}

func TestReplaceHistoryKeepsTheOldMessages(t *testing.T) {
	c := newClock()
	s := mustOpen(t, WithClock(c.Now))
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range conversation {
		if err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	compacted := []models.Message{
		conversation[0],
		{Role: models.RoleUser, Content: "Summary so far: the config is parsed in config/parse.go."},
	}
	if err := s.ReplaceHistory(ctx, sess.ID, compacted); err != nil {
		t.Fatal(err)
	}
	next := models.Message{Role: models.RoleUser, Content: "Now add a test."}
	if err := s.AppendMessage(ctx, sess.ID, next); err != nil {
		t.Fatal(err)
	}

	active, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(compacted, next), active); diff != "" {
		t.Errorf("active history after compaction (-want +got):\n%s", diff)
	}

	all, err := s.AllMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := len(conversation) + len(compacted) + 1
	if len(all) != want {
		t.Fatalf("AllMessages has %d rows, want %d", len(all), want)
	}
	for i, sm := range all {
		if sm.Seq != i+1 {
			t.Errorf("row %d has seq %d", i, sm.Seq)
		}
		if old := i < len(conversation); sm.Superseded != old {
			t.Errorf("row %d superseded = %v, want %v", i, sm.Superseded, old)
		}
		if i > 0 && sm.Time.Before(all[i-1].Time) {
			t.Errorf("row %d is older than the row before it", i)
		}
	}
	if diff := cmp.Diff(conversation[2], all[2].Message); diff != "" {
		t.Errorf("superseded message changed (-want +got):\n%s", diff)
	}

	got, err := s.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Turns != 2 || got.Title != titleOf(conversation[1].Content) {
		t.Errorf("compaction changed the listing: turns %d, title %q", got.Turns, got.Title)
	}
}

func TestReplaceHistoryIsAllOrNothing(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range conversation[:2] {
		if err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	// Make the second insert of the replacement fail.
	_, err = s.DB().ExecContext(ctx, `CREATE TRIGGER fail_boom BEFORE INSERT ON messages
		WHEN NEW.content = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`)
	if err != nil {
		t.Fatal(err)
	}
	replacement := []models.Message{{Role: models.RoleUser, Content: "summary"}, {Role: models.RoleUser, Content: "boom"}}
	if err := s.ReplaceHistory(ctx, sess.ID, replacement); err == nil {
		t.Fatal("ReplaceHistory succeeded despite the failing insert")
	}
	all, err := s.AllMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Superseded || all[1].Superseded {
		t.Errorf("a failed replace left %d rows (%+v); want the 2 old ones, active", len(all), all)
	}
	if err := s.ReplaceHistory(ctx, "nope", conversation); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReplaceHistory of an unknown session: %v, want ErrNotFound", err)
	}
}

// TestMessageModelAfterUpgrade: a store written before messages had a
// model gains the column, its messages reading as written by no model
// named, and new ones keep theirs.
func TestMessageModelAfterUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tern.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Create(t.Context(), "small", "/d")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(t.Context(), sess.ID, models.Message{Role: models.RoleAssistant, Content: "old"}); err != nil {
		t.Fatal(err)
	}
	// Back to schema 3: without the column, as an older tern left it.
	for _, q := range []string{`ALTER TABLE messages DROP COLUMN model`, `PRAGMA user_version = 3`} {
		if _, err := s.DB().ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open a schema-3 store: %v", err)
	}
	defer s.Close()
	if err := s.AppendMessage(t.Context(), sess.ID, models.Message{Role: models.RoleAssistant, Content: "new", Model: "big"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Messages(t.Context(), sess.ID)
	if err != nil || len(got) != 2 || got[0].Model != "" || got[1].Model != "big" {
		t.Errorf("messages %+v, %v", got, err)
	}
}
