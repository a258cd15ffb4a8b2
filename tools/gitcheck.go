package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CheckGit reports whether git can take checkpoints of the workspace at
// root: nil, or an error wrapping ErrNoGit or ErrNotRepo (or git's own).
func CheckGit(ctx context.Context, root string) error {
	_, err := gitRun{dir: root}.run(ctx, "rev-parse", "--git-dir")
	return err
}

// SessionDiff is the unified diff from the checkpoint taken before the
// first change of session sessionID to the workspace's files now: what
// the session (and anyone since) changed, files it created included,
// ignored files left out. It changes nothing. The error wraps
// ErrNoCheckpoint when the session has none, ErrNoGit or ErrNotRepo when
// git cannot help.
func SessionDiff(ctx context.Context, ws *Workspace, sessionID string) (string, error) {
	g := gitRun{dir: ws.root}
	out, err := g.run(ctx, "rev-parse", "-q", "--verify", CheckpointRef(sessionID)+"^{commit}")
	if errors.Is(err, ErrNoGit) || errors.Is(err, ErrNotRepo) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("session %s: %w", sessionID, ErrNoCheckpoint)
	}
	current, err := snapshot(ctx, ws)
	if err != nil {
		return "", err
	}
	diff, err := g.run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--relative", "-M",
		strings.TrimSpace(out), current, "--", ".")
	if err != nil {
		return "", fmt.Errorf("compare with the checkpoint: %w", err)
	}
	return diff, nil
}
