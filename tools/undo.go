package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoCheckpoint means a session changed nothing, or changed files where no
// checkpoint could be taken; there is nothing to undo.
var ErrNoCheckpoint = errors.New("no checkpoint")

// UndoPlan is what restoring a session's checkpoint would change.
type UndoPlan struct {
	Session string
	// Commit is the checkpoint.
	Commit string
	// Restore lists the files (relative to the workspace root) changed or
	// deleted since the checkpoint; they get their checkpoint content back.
	Restore []string
	// Delete lists the files created since the checkpoint; they are removed.
	Delete []string

	ws      *Workspace
	current string // the tree of the files now
}

// Empty reports whether the files already match the checkpoint.
func (p *UndoPlan) Empty() bool { return len(p.Restore) == 0 && len(p.Delete) == 0 }

// PlanUndo compares the workspace's files with the checkpoint of sessionID.
// It changes nothing. The error wraps ErrNoCheckpoint when the session has
// none, and ErrNoGit or ErrNotRepo when git cannot help.
func PlanUndo(ctx context.Context, ws *Workspace, sessionID string) (*UndoPlan, error) {
	g := gitRun{dir: ws.root}
	out, err := g.run(ctx, "rev-parse", "-q", "--verify", CheckpointRef(sessionID)+"^{commit}")
	if errors.Is(err, ErrNoGit) || errors.Is(err, ErrNotRepo) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNoCheckpoint)
	}
	return PlanUndoTo(ctx, ws, sessionID, strings.TrimSpace(out))
}

// PlanUndoTo compares the workspace's files with those of commit, taken for
// session sessionID (Checkpoint.TurnCommit: before a turn). It changes
// nothing.
func PlanUndoTo(ctx context.Context, ws *Workspace, sessionID, commit string) (*UndoPlan, error) {
	g := gitRun{dir: ws.root}
	p := &UndoPlan{Session: sessionID, Commit: commit, ws: ws}
	var err error
	if p.current, err = snapshot(ctx, ws); err != nil {
		return nil, err
	}
	// Paths come relative to the workspace root, and only from inside it.
	diff, err := g.run(ctx, "diff-tree", "-r", "-z", "--no-renames", "--name-status", "--relative", p.Commit, p.current, "--", ".")
	if err != nil {
		return nil, fmt.Errorf("compare with the checkpoint: %w", err)
	}
	fields := strings.Split(strings.TrimSuffix(diff, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status, path := fields[i], fields[i+1]
		if status == "A" {
			p.Delete = append(p.Delete, path)
		} else {
			p.Restore = append(p.Restore, path)
		}
	}
	return p, nil
}

// Apply restores the plan: the files of Restore get their checkpoint
// content, those of Delete are removed. The files as they were just before
// are saved first under refs/tern/undone/<session>, which it returns, so the
// undo can itself be undone with git. The user's index is not touched.
func (p *UndoPlan) Apply(ctx context.Context) (savedRef string, err error) {
	if p.Empty() {
		return "", nil
	}
	before, err := commitTree(ctx, p.ws, p.current, p.Commit, "tern: files before undoing session "+p.Session)
	if err != nil {
		return "", err
	}
	savedRef = undoneRef(p.Session)
	g := gitRun{dir: p.ws.root}
	if _, err := g.run(ctx, "update-ref", "-m", "tern undo", savedRef, before); err != nil {
		return "", err
	}
	// Files created since go first: one may be a link standing where a
	// restored directory goes (d -> elsewhere, for d/f.txt). A path that
	// cannot be removed safely is reported, and the rest still undone.
	var errs []error
	for _, path := range p.Delete {
		if err := p.remove(path); err != nil {
			errs = append(errs, fmt.Errorf("undo: %w", err))
		}
	}
	if len(p.Restore) > 0 {
		tmp, err := os.MkdirTemp("", "tern-index-")
		if err != nil {
			return "", fmt.Errorf("undo: %w", err)
		}
		defer os.RemoveAll(tmp)
		gi := gitRun{dir: p.ws.root, env: []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}}
		if _, err := gi.run(ctx, "read-tree", p.Commit); err != nil {
			return "", fmt.Errorf("undo: %w", err)
		}
		for _, path := range p.Restore {
			// A directory now standing where a file was restored would
			// stop checkout-index; it only holds files created since.
			if abs, _, err := p.ws.Resolve(path, Write); err == nil {
				if r, rel, err := p.ws.inRoot(abs); err == nil {
					if info, err := r.Lstat(rel); err == nil && info.IsDir() {
						r.RemoveAll(rel)
					}
					r.Close()
				}
			}
		}
		gi.stdin = strings.NewReader(strings.Join(p.Restore, "\x00") + "\x00")
		if _, err := gi.run(ctx, "checkout-index", "-f", "-z", "--stdin"); err != nil {
			return savedRef, fmt.Errorf("undo: %w", err)
		}
	}
	return savedRef, errors.Join(errs...)
}

// remove deletes the file at path (relative to the root) and the
// directories it leaves empty, never leaving the workspace: the parent
// directory must resolve inside it, the removal goes through the
// workspace's root, and a symbolic link is removed, not followed.
func (p *UndoPlan) remove(path string) error {
	dir, _, err := p.ws.Resolve(filepath.Dir(filepath.FromSlash(path)), Write)
	if err != nil {
		return err
	}
	r, rel, err := p.ws.inRoot(filepath.Join(dir, filepath.Base(path)))
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rootErr(rel, err)
	}
	for d := filepath.Dir(rel); d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if r.Remove(d) != nil {
			break // not empty
		}
	}
	return nil
}
