package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/tools"
)

// diffOptions are tern diff's flags.
type diffOptions struct {
	// session names the session; "" is the latest with a checkpoint.
	session string
}

func (a *app) diffCommand() *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show what a session changed: the diff from its checkpoint to the files now",
		Long: `Print the unified diff from the git checkpoint tern took before the first
change of a session (the latest session that has one, or --session ID) to
the workspace's files now: what tern undo would take back. Files the
session created are included, files git ignores are not. Changes made
after the session, by anyone, show too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runCommand(cmd.Context(), a, o, a.diff) },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session whose changes to show (ID or unique prefix; default: the latest with a checkpoint)")
	return cmd
}

func (a *app) diff(ctx context.Context, o *diffOptions) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	ws, sess, err := checkpoint.Find(ctx, root, o.session, "diff is unavailable: %s, so tern takes no checkpoints here")
	if err != nil {
		return err
	}
	diff, err := tools.SessionDiff(ctx, ws, sess.ID)
	switch {
	case errors.Is(err, tools.ErrNoCheckpoint):
		return checkpoint.Explain(sess.ID, err)
	case err != nil:
		return fmt.Errorf("diff is unavailable: %s", checkpoint.Unavailable(err))
	}
	if diff == "" {
		fmt.Fprintf(a.stderr, "tern: session %s: no changes; the files match its checkpoint\n", sess.ID)
		return nil
	}
	_, err = fmt.Fprint(a.stdout, diff)
	return err
}
