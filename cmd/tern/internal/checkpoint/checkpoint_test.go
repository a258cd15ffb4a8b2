package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// gitRepo makes a git repository at dir with one committed file.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmdtest.GitCommit(t, dir)
}

// sessions creates n sessions in the workspace at root, a minute apart,
// oldest first, and records a checkpoint commit for those in withCP.
func sessions(t *testing.T, root string, n int, withCP ...int) []string {
	t.Helper()
	now := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	store, err := session.OpenWorkspace(t.Context(), root, session.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var ids []string
	for i := range n {
		now = now.Add(time.Minute)
		s, err := store.Create(t.Context(), fmt.Sprintf("model-%d", i), root)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	for _, i := range withCP {
		if err := store.SetMeta(t.Context(), ids[i], checkpoint.MetaKey, "0123456789abcdef"); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

const noGit = "undo is unavailable: %s, so no checkpoints"

func TestFind(t *testing.T) {
	t.Parallel()
	t.Run("git: the latest with a checkpoint, or the one named", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		gitRepo(t, root)
		ids := sessions(t, root, 3, 0, 1)
		for _, tt := range []struct{ id, want string }{
			{"", ids[1]},
			{ids[2], ids[2]}, // named: found even without a checkpoint
			{ids[0][len(ids[0])-4:], ids[0]},
		} {
			ws, sess, err := checkpoint.Find(t.Context(), root, tt.id, noGit)
			if err != nil || sess.ID != tt.want || ws == nil || ws.Root() != root {
				t.Errorf("Find(%q) = %v, %s, %v; want %s", tt.id, ws, sess.ID, err, tt.want)
			}
		}
	})
	t.Run("git: none has a checkpoint", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		gitRepo(t, root)
		sessions(t, root, 2)
		if _, _, err := checkpoint.Find(t.Context(), root, "", noGit); !errors.Is(err, checkpoint.ErrNone) {
			t.Errorf("Find = %v, want ErrNone", err)
		}
	})
	t.Run("outside git", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		sessions(t, root, 1)
		_, _, err := checkpoint.Find(t.Context(), root, "", noGit)
		if err == nil || err.Error() != "undo is unavailable: the workspace is not in a git repository, so no checkpoints" {
			t.Errorf("Find = %v, want the reason there are no checkpoints", err)
		}
	})
	t.Run("unknown session", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		sessions(t, root, 1)
		_, _, err := checkpoint.Find(t.Context(), root, "zz99", noGit)
		if err == nil || err.Error() != "no session \"zz99\" in this workspace; list them with `tern sessions`" {
			t.Errorf("Find = %v", err)
		}
	})
}

func TestExplain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("plan: %w", tools.ErrNoCheckpoint), "session s1 has no checkpoint: it changed no files, or changed them where git could not take one"},
		{fmt.Errorf("git: %w", tools.ErrNotRepo), "undo is unavailable: the workspace is not in a git repository"},
		{fmt.Errorf("git: %w", tools.ErrNoGit), "undo is unavailable: git is not installed"},
		{errors.New("disk full"), "undo is unavailable: disk full"},
	} {
		if got := checkpoint.Explain("s1", tt.err).Error(); got != tt.want {
			t.Errorf("Explain(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	if got := checkpoint.Unavailable(context.Canceled); !strings.Contains(got, "canceled") {
		t.Errorf("Unavailable(context.Canceled) = %q", got)
	}
}

// metaFunc is a MetaSetter.
type metaFunc func(ctx context.Context, sessionID, key, value string) error

func (f metaFunc) SetMeta(ctx context.Context, sessionID, key, value string) error {
	return f(ctx, sessionID, key, value)
}

// TestRecorder: a new checkpoint is recorded where Find looks and
// announced; one recorded before says nothing; one not taken, or not
// recorded, says what undo then cannot do.
func TestRecorder(t *testing.T) {
	t.Parallel()
	const commit = "0123456789abcdef0123"
	for _, tt := range []struct {
		name     string
		saved    tools.Saved
		setErr   error
		recorded bool
		want     []string
	}{
		{name: "new", saved: tools.Saved{Commit: commit}, recorded: true,
			want: []string{"checkpoint 01234567 saved before the first change; `tern undo` restores it"}},
		{name: "resumed", saved: tools.Saved{Commit: commit, Existed: true}},
		{name: "no git", saved: tools.Saved{Err: fmt.Errorf("checkpoint: %w", tools.ErrNotRepo)},
			want: []string{"no undo checkpoint before the first change (the workspace is not in a git repository); `tern undo` cannot restore this session's changes"}},
		{name: "not recorded", saved: tools.Saved{Commit: commit}, setErr: errors.New("database is locked"), recorded: true,
			want: []string{"checkpoint 01234567 saved, but not recorded in the session: database is locked"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			recorded := ""
			store := metaFunc(func(ctx context.Context, id, key, value string) error {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				recorded = id + " " + key + "=" + value
				return tt.setErr
			})
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // the turn may be ending: the record is kept all the same
			checkpoint.Recorder(store, "s1", func(n string) { got = append(got, n) })(ctx, tt.saved)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("notices %q, want %q", got, tt.want)
			}
			if want := "s1 checkpoint=" + commit; tt.recorded != (recorded == want) {
				t.Errorf("recorded %q, want it %v", recorded, tt.recorded)
			}
		})
	}
}

// TestRecorderThenFind: what Recorder records is what Find looks for.
func TestRecorderThenFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gitRepo(t, root)
	ids := sessions(t, root, 2)
	store, err := session.OpenWorkspace(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	checkpoint.Recorder(store, ids[0], func(string) {})(t.Context(), tools.Saved{Commit: "0123456789abcdef"})
	if _, sess, err := checkpoint.Find(t.Context(), root, "", noGit); err != nil || sess.ID != ids[0] {
		t.Errorf("Find = %s, %v; want %s", sess.ID, err, ids[0])
	}
}
