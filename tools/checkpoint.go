package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CheckpointRef is the git ref that holds the checkpoint of a session: a
// commit of the workspace's files as they were before its first change.
func CheckpointRef(sessionID string) string { return "refs/tern/checkpoints/" + sessionID }

// undoneRef holds the files as they were when a session's checkpoint was
// restored, so that an undo can itself be undone with git.
func undoneRef(sessionID string) string { return "refs/tern/undone/" + sessionID }

// checkpointIdentity signs checkpoint commits, so they work in a repository
// whose user has set no name or email.
var checkpointIdentity = []string{
	"GIT_AUTHOR_NAME=tern", "GIT_AUTHOR_EMAIL=tern@localhost",
	"GIT_COMMITTER_NAME=tern", "GIT_COMMITTER_EMAIL=tern@localhost",
}

// Checkpoint saves the workspace's files under CheckpointRef before the
// first change of a session. It uses git plumbing with an index file of its
// own, so the user's index, working tree, HEAD, branches and stash list are
// never touched. Files ignored by git are not saved (and an undo leaves them
// alone).
//
// A nil *Checkpoint takes no checkpoint; the tools that change files accept
// one for tests and for workspaces where undo is not wanted.
type Checkpoint struct {
	ws      *Workspace
	session string
	onSave  func(ctx context.Context, s Saved)

	mu    sync.Mutex
	tried bool
	// marked is set from MarkTurn to ForgetTurn; turn from MarkTurn to the
	// turn's first Save, and turnCommit holds the files as they were
	// before that Save.
	marked, turn bool
	turnCommit   string
	turnErr      error
}

// Saved is what became of a session's checkpoint.
type Saved struct {
	Ref    string
	Commit string
	// Existed is set when the session (resumed) already had a checkpoint.
	Existed bool
	// Err is set when no checkpoint could be taken (git missing, not a
	// repository). The change goes on without one; undo is then unavailable.
	Err error
}

// NewCheckpoint returns the checkpoint keeper of one session. onSave, which
// may be nil, learns the outcome of the first Save: the place to record the
// commit and tell the user.
func NewCheckpoint(ws *Workspace, sessionID string, onSave func(ctx context.Context, s Saved)) *Checkpoint {
	return &Checkpoint{ws: ws, session: sessionID, onSave: onSave}
}

// Save takes the session's checkpoint unless it was tried already. Tools
// call it right before they change anything; it costs a git add of the
// changed files, once per session.
func (c *Checkpoint) Save(ctx context.Context) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tried {
		c.tried = true
		s := c.save(ctx)
		if c.onSave != nil {
			c.onSave(ctx, s)
		}
		if c.turn && s.Err == nil && !s.Existed {
			c.turn, c.turnCommit = false, s.Commit // the same files
		}
	}
	if c.turn {
		c.turn = false
		c.turnCommit, c.turnErr = c.saveTurn(ctx)
	}
}

// MarkTurn starts a turn: its first Save also keeps the files as they are
// then (TurnCommit), so that the turn alone can be taken back.
func (c *Checkpoint) MarkTurn() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marked, c.turn, c.turnCommit, c.turnErr = true, true, "", nil
}

// ForgetTurn forgets the marked turn, once it was taken back.
func (c *Checkpoint) ForgetTurn() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marked, c.turn, c.turnCommit, c.turnErr = false, false, "", nil
}

// TurnCommit is the commit of the files as they were before the marked
// turn's first change, "" when it changed nothing; err says why git could
// not keep them (ErrNoGit, ErrNotRepo, …), and known is false when no turn
// is marked.
func (c *Checkpoint) TurnCommit() (commit string, known bool, err error) {
	if c == nil {
		return "", false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turnCommit, c.marked, c.turnErr
}

// saveTurn commits the files as they are now, for TurnCommit.
func (c *Checkpoint) saveTurn(ctx context.Context) (string, error) {
	tree, err := snapshot(ctx, c.ws)
	if err != nil {
		return "", err
	}
	return commitTree(ctx, c.ws, tree, "HEAD", "tern: the files before a turn of session "+c.session)
}

func (c *Checkpoint) save(ctx context.Context) Saved {
	ref := CheckpointRef(c.session)
	g := gitRun{dir: c.ws.root}
	if out, err := g.run(ctx, "rev-parse", "-q", "--verify", ref+"^{commit}"); err == nil {
		return Saved{Ref: ref, Commit: strings.TrimSpace(out), Existed: true}
	} else if errors.Is(err, ErrNoGit) || errors.Is(err, ErrNotRepo) {
		return Saved{Ref: ref, Err: err}
	}
	tree, err := snapshot(ctx, c.ws)
	if err != nil {
		return Saved{Ref: ref, Err: err}
	}
	commit, err := commitTree(ctx, c.ws, tree, "HEAD", "tern checkpoint before the first change of session "+c.session)
	if err != nil {
		return Saved{Ref: ref, Err: err}
	}
	if _, err := g.run(ctx, "update-ref", "-m", "tern checkpoint", ref, commit); err != nil {
		return Saved{Ref: ref, Err: err}
	}
	return Saved{Ref: ref, Commit: commit}
}

// snapshot writes the workspace's files, as they are now, into git's object
// store and returns the tree. It works on a copy of the user's index (so
// unchanged files are not hashed again), and falls back to an empty index
// when that copy cannot be used.
func snapshot(ctx context.Context, ws *Workspace) (tree string, err error) {
	tmp, err := os.MkdirTemp("", "tern-index-")
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	g := gitRun{dir: ws.root, env: []string{"GIT_INDEX_FILE=" + index, gitMagicPathspecs}}
	seeded := seedIndex(ctx, ws.root, index)
	add := []string{"add", "-A", "--", ".", ":(exclude).tern", ":(exclude).git"}
	if _, err = g.run(ctx, add...); err != nil && seeded {
		os.Remove(index)
		_, err = g.run(ctx, add...)
	}
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	out, err := g.run(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return strings.TrimSpace(out), nil
}

// seedIndex copies the repository's index to index and reports whether it
// did. The copy keeps the index's modification time: git trusts an entry's
// recorded stat data only when the file was last changed before the index
// was written, so a copy dated now would hide a file changed in the same
// second as the user's last commit, at the same size, from the snapshot.
func seedIndex(ctx context.Context, root, index string) bool {
	out, err := gitRun{dir: root}.run(ctx, "rev-parse", "--git-path", "index")
	if err != nil {
		return false
	}
	src := strings.TrimSpace(out)
	if !filepath.IsAbs(src) {
		src = filepath.Join(root, src)
	}
	fi, err := os.Stat(src)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return false
	}
	return os.WriteFile(index, data, 0o600) == nil && os.Chtimes(index, fi.ModTime(), fi.ModTime()) == nil
}

// commitTree records tree as a commit whose parent is parent (when it
// exists; an unborn HEAD has none) and returns the commit.
func commitTree(ctx context.Context, ws *Workspace, tree, parent, message string) (string, error) {
	g := gitRun{dir: ws.root, env: checkpointIdentity}
	args := []string{"commit-tree", tree, "-m", message}
	if out, err := g.run(ctx, "rev-parse", "-q", "--verify", parent+"^{commit}"); err == nil {
		args = append(args, "-p", strings.TrimSpace(out))
	}
	out, err := g.run(ctx, args...)
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return strings.TrimSpace(out), nil
}
