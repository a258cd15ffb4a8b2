package tools

import "context"

// CheckGit reports whether git can take checkpoints of the workspace at
// root: nil, or an error wrapping ErrNoGit or ErrNotRepo (or git's own).
func CheckGit(ctx context.Context, root string) error {
	_, err := gitRun{dir: root}.run(ctx, "rev-parse", "--git-dir")
	return err
}
