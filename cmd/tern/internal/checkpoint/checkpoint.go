// Package checkpoint is a session's undo checkpoint as tern's commands see
// it: how a run records its commit in the session and tells the user
// (Recorder, MetaKey), how tern undo, tern diff and the TUI find the
// session whose checkpoint to use (Find), and the wording of why there is
// none (Explain, Unavailable).
// The checkpoint itself, a git commit of the files before a session's
// first change, is tools' (tools.Checkpoint, tools.PlanUndo).
//
// checkpoint imports session and tools, nothing else of tern.
package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// MetaKey is the session meta key holding the commit of the session's
// checkpoint, recorded when it is taken.
const MetaKey = "checkpoint"

// ErrNone says no session of a git workspace has a checkpoint.
var ErrNone = errors.New("no session in this workspace has a checkpoint: none has changed files yet")

// Find opens the workspace at root and finds the session id names (the
// latest with a checkpoint when id is empty), for undo and diff. Outside
// git, noGit words the error with the reason git is unavailable (its %s):
// not "none has changed files", since without git there are no
// checkpoints, whatever the sessions changed.
func Find(ctx context.Context, root, id, noGit string) (*tools.Workspace, session.Session, error) {
	store, ok, err := session.OpenExisting(ctx, root)
	if err != nil {
		return nil, session.Session{}, err
	}
	var sess session.Session
	if ok {
		defer store.Close()
		sess, err = lookup(ctx, store, id)
	} else {
		err = notFound(id) // a workspace tern never ran in: no .tern made to say so
	}
	if errors.Is(err, ErrNone) {
		if gerr := tools.CheckGit(ctx, root); gerr != nil {
			return nil, session.Session{}, fmt.Errorf(noGit, Unavailable(gerr))
		}
	}
	if err != nil {
		return nil, session.Session{}, err
	}
	ws, err := tools.NewWorkspace(root)
	return ws, sess, err
}

// notFound is lookup's error for a session id the workspace does not
// have; with no id, ErrNone.
func notFound(id string) error {
	if id == "" {
		return ErrNone
	}
	return fmt.Errorf("no session %q in this workspace; list them with `tern sessions`", id)
}

// lookup finds the session to undo: the one named, else the latest that
// recorded a checkpoint.
func lookup(ctx context.Context, store *session.Store, id string) (session.Session, error) {
	if id != "" {
		s, err := store.Get(ctx, id)
		if errors.Is(err, session.ErrNotFound) {
			return s, notFound(id)
		}
		return s, err
	}
	list, err := store.List(ctx, 200)
	if err != nil {
		return session.Session{}, err
	}
	for _, s := range list {
		if _, ok, err := store.Meta(ctx, s.ID, MetaKey); err != nil {
			return s, err
		} else if ok {
			return s, nil
		}
	}
	return session.Session{}, ErrNone
}

// Explain says why a session's files cannot be restored: err is
// tools.PlanUndo's (or tools.SessionDiff's) error.
func Explain(sessionID string, err error) error {
	if errors.Is(err, tools.ErrNoCheckpoint) {
		return fmt.Errorf("session %s has no checkpoint: it changed no files, or changed them where git could not take one", sessionID)
	}
	return fmt.Errorf("undo is unavailable: %s", Unavailable(err))
}

// Unavailable words why git could not take a checkpoint.
func Unavailable(err error) string {
	switch {
	case errors.Is(err, tools.ErrNotRepo):
		return "the workspace is not in a git repository"
	case errors.Is(err, tools.ErrNoGit):
		return "git is not installed"
	}
	return err.Error()
}

// MetaSetter records a session's meta values; *session.Store is one.
type MetaSetter interface {
	SetMeta(ctx context.Context, sessionID, key, value string) error
}

// Recorder returns what a run gives tools.NewCheckpoint to learn of its
// session's checkpoint: a new one is recorded in the session under
// MetaKey (so tern undo and tern diff find it) and announced; one that
// could not be taken is explained. notify tells the user; a resumed
// session's existing checkpoint says nothing.
func Recorder(store MetaSetter, sessionID string, notify func(string)) func(context.Context, tools.Saved) {
	return func(ctx context.Context, s tools.Saved) {
		switch {
		case s.Err != nil:
			notify(fmt.Sprintf("no undo checkpoint before the first change (%v); `tern undo` cannot restore this session's changes", Unavailable(s.Err)))
		case !s.Existed:
			if err := store.SetMeta(context.WithoutCancel(ctx), sessionID, MetaKey, s.Commit); err != nil {
				notify(fmt.Sprintf("checkpoint %.8s saved, but not recorded in the session: %v", s.Commit, err))
				return
			}
			notify(fmt.Sprintf("checkpoint %.8s saved before the first change; `tern undo` restores it", s.Commit))
		}
	}
}
