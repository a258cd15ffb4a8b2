package session

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ternhq/tern/models"
)

func TestCreateAndGet(t *testing.T) {
	c := newClock()
	s := mustOpen(t, WithClock(c.Now))
	sess, err := s.Create(t.Context(), "qwen3:8b", "/home/me/repo")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^20261122-0204-[0-9a-f]{4}$`).MatchString(sess.ID) {
		t.Errorf("id %q is not YYYYMMDD-HHMM-xxxx of the start time", sess.ID)
	}
	got, err := s.Get(t.Context(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != sess.ID || got.Model != "qwen3:8b" || got.Dir != "/home/me/repo" ||
		!got.Started.Equal(sess.Started) || !got.Updated.Equal(sess.Started) {
		t.Errorf("Get = %+v, want %+v", got, sess)
	}
	if !got.Started.Equal(c.t) {
		t.Errorf("Started = %v, want the clock's %v", got.Started, c.t)
	}
}

func TestGetByPrefixOrSuffix(t *testing.T) {
	c := newClock()
	s := mustOpen(t, WithClock(c.Now))
	ctx := t.Context()
	var ids []string
	for len(ids) < 3 {
		sess, err := s.Create(ctx, "m", "/d")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID) // all start in the same minute
	}
	c.t = c.t.AddDate(0, 1, 0)
	later, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	suffix := ids[1][len(ids[1])-4:]

	tests := []struct {
		name, query string
		want        string // the id found, or "" for an error
		err         error
	}{
		{"exact", ids[0], ids[0], nil},
		{"unique prefix", later.ID[:7], later.ID, nil},
		{"random suffix", suffix, ids[1], nil},
		{"upper case and spaces", " " + strings.ToUpper(suffix) + " ", ids[1], nil},
		{"shared prefix", "20261122", "", ErrAmbiguous},
		{"unknown", "zzzz", "", ErrNotFound},
		{"empty", "", "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(strings.ToLower(tt.query), suffix) && (strings.HasSuffix(ids[0], suffix) || strings.HasSuffix(ids[2], suffix)) {
				t.Skip("the random suffixes collided (1 in 20,000 runs)")
			}
			got, err := s.Get(ctx, tt.query)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Get(%q) = %v, %v; want %v", tt.query, got.ID, err, tt.err)
				}
				return
			}
			if err != nil || got.ID != tt.want {
				t.Errorf("Get(%q) = %q, %v; want %q", tt.query, got.ID, err, tt.want)
			}
		})
	}
	t.Run("ambiguity names the candidates", func(t *testing.T) {
		_, err := s.Get(ctx, "20261122-02")
		for _, id := range ids {
			if !strings.Contains(err.Error(), id) {
				t.Errorf("error %q does not name %s", err, id)
			}
		}
	})
}

func TestLatestAndList(t *testing.T) {
	c := newClock()
	s := mustOpen(t, WithClock(c.Now))
	ctx := t.Context()
	if _, err := s.Latest(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest on an empty store: %v, want ErrNotFound", err)
	}
	if list, err := s.List(ctx, 10); err != nil || len(list) != 0 {
		t.Errorf("List on an empty store = %v, %v", list, err)
	}
	var ids []string
	for range 4 {
		sess, err := s.Create(ctx, "m", "/d")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID)
	}
	// Writing to the oldest session makes it the latest.
	if err := s.AppendMessage(ctx, ids[0], models.Message{Role: models.RoleUser, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	latest, err := s.Latest(ctx)
	if err != nil || latest.ID != ids[0] {
		t.Errorf("Latest = %q, %v; want %q", latest.ID, err, ids[0])
	}
	list, err := s.List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ids[0], ids[3], ids[2], ids[1]}
	if got := sessionIDs(list); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("List order = %v, want %v", got, want)
	}
	if list, _ := s.List(ctx, 2); len(list) != 2 {
		t.Errorf("List(2) gave %d sessions", len(list))
	}
}

func sessionIDs(list []Session) []string {
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestTitleAndTurns(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	long := "Fix the failing test in\n  parser_test.go.\tIt panics when the input is empty; " +
		"also add a regression test and keep the error message the same as before please"
	for _, m := range []models.Message{
		{Role: models.RoleSystem, Content: "You are tern."},
		{Role: models.RoleUser, Content: long},
		{Role: models.RoleAssistant, Content: "Looking."},
		{Role: models.RoleUser, Content: "and the docs too"},
	} {
		if err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Turns != 2 {
		t.Errorf("Turns = %d, want 2 user messages", got.Turns)
	}
	if strings.ContainsAny(got.Title, "\n\t") || strings.Contains(got.Title, "  ") {
		t.Errorf("title is not one tidy line: %q", got.Title)
	}
	if n := utf8.RuneCountInString(got.Title); n > TitleMax {
		t.Errorf("title has %d runes, more than %d", n, TitleMax)
	}
	if !strings.HasPrefix(got.Title, "Fix the failing test in parser_test.go. It panics") || !strings.HasSuffix(got.Title, "…") {
		t.Errorf("title = %q, want the first prompt cut with …", got.Title)
	}
}

func TestTitleOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short", "short"},
		{"  two\nlines  ", "two lines"},
		{strings.Repeat("é", 80), strings.Repeat("é", 80)},
		{strings.Repeat("é", 81), strings.Repeat("é", 79) + "…"},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 16)) + "…"},
	}
	for _, tt := range tests {
		if got := titleOf(tt.in); got != tt.want {
			t.Errorf("titleOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDelete(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	sess, err := s.Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(ctx, sess.ID, models.Message{Role: models.RoleUser, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordTurn(ctx, sess.ID, TurnMetrics{PromptTokens: 10}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, sess.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	var left int
	if err := s.DB().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM turn_metrics)`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d rows left behind, %v", left, err)
	}
	if err := s.Delete(ctx, sess.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
}
