// Package undocmd is the `tern undo` command, in the cli/cli manner:
// Options (its flags), NewCmd (the cobra command, handing the parsed
// Options to the run it is given, so that tests parse command lines
// without running anything) and Run (find the session's checkpoint, show
// what restoring it changes, ask, restore).
//
// Package main gives Run the workspace root, the streams and whether
// --yes (or --yolo) answers for the user. undocmd imports checkpoint,
// tools and words, nothing else of tern.
package undocmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/tools"
)

// Options are tern undo's flags.
type Options struct {
	// Session names the session; "" is the latest with a checkpoint.
	Session string
}

// NewCmd returns the tern undo command. It hands the options it parsed to
// run.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
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
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session to undo (ID or unique prefix; default: the latest with a checkpoint)")
	return cmd
}

// Env is what Run works with.
type Env struct {
	// Root is the workspace.
	Root string
	// In holds the user's answer; Out gets the plan and the outcome, Err
	// the question.
	In       io.Reader
	Out, Err io.Writer
	// Yes restores without asking (--yes, --yolo).
	Yes bool
}

// Run finds the session's checkpoint, lists the files restoring it
// changes, asks unless env.Yes, and restores them.
func Run(ctx context.Context, env Env, o *Options) error {
	ws, sess, err := checkpoint.Find(ctx, env.Root, o.Session, "undo is unavailable: %s, so tern takes no checkpoints here and cannot restore what a session changed")
	if err != nil {
		return err
	}
	plan, err := tools.PlanUndo(ctx, ws, sess.ID)
	if err != nil {
		return checkpoint.Explain(sess.ID, err)
	}
	fmt.Fprintf(env.Out, "Session %s (%s, %q)\ncheckpoint %.8s, taken before its first change\n", sess.ID, sess.Model, words.OneLine(sess.Title, 60), plan.Commit)
	if plan.Empty() {
		fmt.Fprintln(env.Out, "Nothing to undo: the files match the checkpoint.")
		return nil
	}
	if len(plan.Restore) > 0 {
		fmt.Fprintf(env.Out, "Restore %s:\n", words.Count(len(plan.Restore), "file"))
		for _, p := range plan.Restore {
			fmt.Fprintf(env.Out, "  %s\n", p)
		}
	}
	if len(plan.Delete) > 0 {
		fmt.Fprintf(env.Out, "Delete %s created since:\n", words.Count(len(plan.Delete), "file"))
		for _, p := range plan.Delete {
			fmt.Fprintf(env.Out, "  %s\n", p)
		}
	}
	if !env.Yes {
		fmt.Fprint(env.Err, "Restore these files? [y/N] ")
		answer, err := bufio.NewReader(env.In).ReadString('\n')
		answer = strings.ToLower(strings.TrimSpace(answer))
		switch {
		case answer == "" && err != nil:
			fmt.Fprintln(env.Err)
			return errors.New("no answer on stdin; nothing was changed (rerun with --yes to restore without asking)")
		case answer != "y" && answer != "yes":
			return errors.New("nothing was changed")
		}
	}
	saved, err := plan.Apply(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Out, "Restored %s and deleted %s. The files as they were before this undo are in %s (`git checkout %s -- .` brings them back).\n",
		words.Count(len(plan.Restore), "file"), words.Count(len(plan.Delete), "file"), saved, saved)
	return nil
}
