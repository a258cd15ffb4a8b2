package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// undoOptions are tern undo's flags.
type undoOptions struct {
	// session names the session; "" is the latest with a checkpoint.
	session string
}

func (a *app) undoCommand() *cobra.Command {
	o := &undoOptions{}
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Restore the files to the checkpoint taken before a session's first change",
		Long: `Restore the workspace's files to the git checkpoint tern took before the first
change of a session (the latest session that has one, or --session ID): files
changed or deleted since get their content back, files created since are
removed. Files ignored by git are left alone, and so are git's index,
branches and stash. Changes made after the session, by anyone, are undone
too: the list is shown first, and tern asks before it restores (--yes
skips the question).

The files as they were just before the undo are kept under
refs/tern/undone/ID, so an undo can itself be undone with git.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runCommand(cmd.Context(), a, o, a.undo) },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session to undo (ID or unique prefix; default: the latest with a checkpoint)")
	return cmd
}

func (a *app) undo(ctx context.Context, o *undoOptions) error {
	ws, sess, err := a.checkpointed(ctx, o.session, "undo is unavailable: %s, so tern takes no checkpoints here and cannot restore what a session changed")
	if err != nil {
		return err
	}
	plan, err := tools.PlanUndo(ctx, ws, sess.ID)
	if err != nil {
		return explainUndo(sess.ID, err)
	}
	fmt.Fprintf(a.stdout, "Session %s (%s, %q)\ncheckpoint %.8s, taken before its first change\n", sess.ID, sess.Model, words.OneLine(sess.Title, 60), plan.Commit)
	if plan.Empty() {
		fmt.Fprintln(a.stdout, "Nothing to undo: the files match the checkpoint.")
		return nil
	}
	if len(plan.Restore) > 0 {
		fmt.Fprintf(a.stdout, "Restore %s:\n", countOf(len(plan.Restore), "file"))
		for _, p := range plan.Restore {
			fmt.Fprintf(a.stdout, "  %s\n", p)
		}
	}
	if len(plan.Delete) > 0 {
		fmt.Fprintf(a.stdout, "Delete %s created since:\n", countOf(len(plan.Delete), "file"))
		for _, p := range plan.Delete {
			fmt.Fprintf(a.stdout, "  %s\n", p)
		}
	}
	if !a.yes && !a.yolo {
		fmt.Fprint(a.stderr, "Restore these files? [y/N] ")
		answer, err := bufio.NewReader(a.stdin).ReadString('\n')
		answer = strings.ToLower(strings.TrimSpace(answer))
		switch {
		case answer == "" && err != nil:
			fmt.Fprintln(a.stderr)
			return errors.New("no answer on stdin; nothing was changed (rerun with --yes to restore without asking)")
		case answer != "y" && answer != "yes":
			return errors.New("nothing was changed")
		}
	}
	saved, err := plan.Apply(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Restored %s and deleted %s. The files as they were before this undo are in %s (`git checkout %s -- .` brings them back).\n",
		countOf(len(plan.Restore), "file"), countOf(len(plan.Delete), "file"), saved, saved)
	return nil
}

// explainUndo says why a session's files cannot be restored.
// checkpointed opens the workspace and finds the session id names (the
// latest with a checkpoint when id is empty), for undo and diff. Outside
// git, noGit words the error with the reason git is unavailable: not "none
// has changed files", since without git there are no checkpoints, whatever
// the sessions changed.
func (a *app) checkpointed(ctx context.Context, id, noGit string) (*tools.Workspace, session.Session, error) {
	root, store, err := a.openStore(ctx)
	if err != nil {
		return nil, session.Session{}, err
	}
	defer store.Close()
	sess, err := undoSession(ctx, store, id)
	if errors.Is(err, errNoCheckpoint) {
		if gerr := tools.CheckGit(ctx, root); gerr != nil {
			return nil, session.Session{}, fmt.Errorf(noGit, unavailable(gerr))
		}
	}
	if err != nil {
		return nil, session.Session{}, err
	}
	ws, err := tools.NewWorkspace(root)
	return ws, sess, err
}

func explainUndo(sessionID string, err error) error {
	if errors.Is(err, tools.ErrNoCheckpoint) {
		return fmt.Errorf("session %s has no checkpoint: it changed no files, or changed them where git could not take one", sessionID)
	}
	return fmt.Errorf("undo is unavailable: %s", unavailable(err))
}

// undoSession finds the session to undo: the one named, else the latest
// that recorded a checkpoint.
func undoSession(ctx context.Context, store *session.Store, id string) (session.Session, error) {
	if id != "" {
		s, err := store.Get(ctx, id)
		if errors.Is(err, session.ErrNotFound) {
			return s, fmt.Errorf("no session %q in this workspace; list them with `tern sessions`", id)
		}
		return s, err
	}
	list, err := store.List(ctx, 200)
	if err != nil {
		return session.Session{}, err
	}
	for _, s := range list {
		if _, ok, err := store.Meta(ctx, s.ID, metaCheckpoint); err != nil {
			return s, err
		} else if ok {
			return s, nil
		}
	}
	return session.Session{}, errNoCheckpoint
}

// errNoCheckpoint says no session of a git workspace has a checkpoint.
var errNoCheckpoint = errors.New("no session in this workspace has a checkpoint: none has changed files yet")

// countOf returns "1 file" or "3 files".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
