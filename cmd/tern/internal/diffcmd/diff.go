// Package diffcmd is the `tern diff` command, in the cli/cli manner:
// Options (its flags), NewCmd (the cobra command, handing the parsed
// Options to the run it is given, so that tests parse command lines
// without running anything) and Run (the unified diff from a session's
// checkpoint to the files now).
//
// Package main gives Run the workspace root and the streams. diffcmd
// imports checkpoint and tools, nothing else of tern.
package diffcmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/tools"
)

// Options are tern diff's flags.
type Options struct {
	// Session names the session; "" is the latest with a checkpoint.
	Session string
}

// NewCmd returns the tern diff command. It hands the options it parsed to
// run.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show what a session changed: the diff from its checkpoint to the files now",
		Long: `Print the unified diff from the git checkpoint tern took before the first
change of a session (the latest session that has one, or --session ID) to
the workspace's files now: what tern undo would take back. Files the
session created are included, files git ignores are not. Changes made
after the session, by anyone, show too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session whose changes to show (ID or unique prefix; default: the latest with a checkpoint)")
	return cmd
}

// Env is what Run works with.
type Env struct {
	// Root is the workspace.
	Root string
	// Out gets the diff; Err says when there is none.
	Out, Err io.Writer
}

// Run prints the diff from the session's checkpoint to the files now.
func Run(ctx context.Context, env Env, o *Options) error {
	ws, sess, err := checkpoint.Find(ctx, env.Root, o.Session, "diff is unavailable: %s, so tern takes no checkpoints here")
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
		fmt.Fprintf(env.Err, "tern: session %s: no changes; the files match its checkpoint\n", sess.ID)
		return nil
	}
	_, err = fmt.Fprint(env.Out, diff)
	return err
}
