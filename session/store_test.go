package session

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a deterministic time source: every reading is step later than
// the one before.
type clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 11, 22, 2, 4, 0, 0, time.Local), step: time.Second}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// mustOpen opens a store in a fresh directory and closes it when the test ends.
func mustOpen(t testing.TB, opts ...Option) *Store {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "tern.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pragma(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRowContext(t.Context(), "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenSetsUpTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", "tern.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, want := range map[string]string{
		"journal_mode":   "wal",
		"foreign_keys":   "1",
		"busy_timeout":   "5000",
		"synchronous":    "1",
		"user_version":   strconv.Itoa(len(migrations)),
		"application_id": "1952805486",
	} {
		if got := pragma(t, s.DB(), name); got != want {
			t.Errorf("PRAGMA %s = %s, want %s", name, got, want)
		}
	}
	if s.Path() != path {
		t.Errorf("Path() = %s, want %s", s.Path(), path)
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tern.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Create(t.Context(), "qwen3:8b", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for range 3 {
		s, err = Open(t.Context(), path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if _, err := s.Get(t.Context(), sess.ID); err != nil {
			t.Errorf("session lost on reopen: %v", err)
		}
		if v := pragma(t, s.DB(), "user_version"); v != strconv.Itoa(len(migrations)) {
			t.Errorf("user_version = %s after reopen", v)
		}
		s.Close()
	}
}

func TestOpenConcurrentlyOnANewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tern.db")
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			s, err := Open(t.Context(), path)
			if err != nil {
				errs <- err
				return
			}
			_, err = s.Create(t.Context(), "m", "/d")
			errs <- err
			s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestOpenRefusesFilesThatAreNotTerns(t *testing.T) {
	foreign := func(t *testing.T, path string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(t.Context(), `CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ann')`); err != nil {
			t.Fatal(err)
		}
	}
	newer := func(t *testing.T, path string) {
		s, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.DB().ExecContext(t.Context(), "PRAGMA user_version = 99"); err != nil {
			t.Fatal(err)
		}
	}
	garbage := func(body string) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		setup func(*testing.T, string)
		want  error
		words []string
	}{
		{"text", garbage(strings.Repeat("this is not a database\n", 200)), ErrNotTernDB, []string{"move"}},
		{"short text", garbage("hello"), ErrNotTernDB, []string{"move"}},
		{"corrupt header", garbage("SQLite format 3\x00" + strings.Repeat("\xff", 4096)), ErrNotTernDB, []string{"move"}},
		{"another program's database", foreign, ErrNotTernDB, []string{"another program", "move"}},
		{"newer tern", newer, ErrNewerSchema, []string{"99", "upgrade tern", "move"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tern.db")
			tt.setup(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Log(err)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %q does not wrap %q", err, tt.want)
			}
			for _, w := range append(tt.words, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("Open changed the file it refused")
			}
		})
	}
}

func TestOpenWorkspace(t *testing.T) {
	t.Run("creates .tern with a .gitignore", func(t *testing.T) {
		root := t.TempDir()
		s, err := OpenWorkspace(t.Context(), root)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, err := os.ReadFile(filepath.Join(root, ".tern", ".gitignore"))
		if err != nil || string(got) != "*\n" {
			t.Errorf(".gitignore = %q, %v; want %q", got, err, "*\n")
		}
		if s.Path() != filepath.Join(root, ".tern", "tern.db") {
			t.Errorf("store at %s", s.Path())
		}
	})
	t.Run("keeps the user's .gitignore", func(t *testing.T) {
		root := t.TempDir()
		mine := "*\n!notes.md\n"
		if err := os.MkdirAll(filepath.Join(root, ".tern"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".tern", ".gitignore"), []byte(mine), 0o644); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			s, err := OpenWorkspace(t.Context(), root)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
		}
		got, _ := os.ReadFile(filepath.Join(root, ".tern", ".gitignore"))
		if string(got) != mine {
			t.Errorf(".gitignore overwritten: %q", got)
		}
	})
}

func TestOpenPathWithURICharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?x=1#frag%20", "tern.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at the path given: %v", err)
	}
}

func TestMigrateComponent(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	v1 := []string{`CREATE TABLE idx_files (path TEXT PRIMARY KEY)`}
	v2 := append(v1, `ALTER TABLE idx_files ADD COLUMN hash TEXT; CREATE TABLE idx_chunks (id INTEGER PRIMARY KEY)`)
	for _, steps := range [][]string{v1, v1, v2, v2} {
		if err := s.Migrate(ctx, "index", steps); err != nil {
			t.Fatalf("Migrate %d steps: %v", len(steps), err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO idx_files (path, hash) VALUES ('a.go', 'h'); INSERT INTO idx_chunks DEFAULT VALUES`); err != nil {
		t.Errorf("tables of both steps should exist: %v", err)
	}
	if err := s.Migrate(ctx, "index", v1); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("older code on a newer file: %v, want ErrNewerSchema", err)
	}
	if v := pragma(t, s.DB(), "user_version"); v != strconv.Itoa(len(migrations)) {
		t.Errorf("another component moved the session schema version to %s", v)
	}
}
