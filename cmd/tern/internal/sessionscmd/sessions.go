// Package sessionscmd is the `tern sessions` command, in the cli/cli
// manner: Options (its flags), NewCmd (the cobra command, handing the
// parsed Options to the run it is given, so that tests parse command
// lines without running anything) and Run (the workspace's sessions as a
// table, newest first).
//
// Package main gives Run the workspace root and the streams.
// sessionscmd imports session and words, nothing else of tern.
package sessionscmd

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/session"
)

// Options are tern sessions' flags.
type Options struct {
	// Limit is the most sessions listed (-n).
	Limit int
}

// NewCmd returns the tern sessions command. It hands the options it
// parsed to run.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List past sessions in this workspace",
		Long: `List the sessions stored in this workspace's .tern/tern.db (or tern's state
directory for a read-only workspace), newest first:
id, start, model, turns, tokens and the first prompt. Continue one with
'tern ask --resume ID "..."' or 'tern --resume ID' (a unique prefix of the
ID is enough).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVarP(&o.Limit, "limit", "n", 20, "most sessions to list (0 lists them all)")
	return cmd
}

// Env is what Run works with.
type Env struct {
	// Root is the workspace whose store is listed.
	Root string
	// Out gets the table; Err says when there is nothing to list.
	Out, Err io.Writer
}

// Run lists the workspace's sessions, newest first: ID, start, model,
// turns, tokens and the first prompt.
func Run(ctx context.Context, env Env, o *Options) error {
	store, ok, err := session.OpenExisting(ctx, env.Root)
	if err != nil {
		return err
	}
	var list []session.Session
	if ok {
		defer store.Close()
		if list, err = store.List(ctx, o.Limit); err != nil {
			return err
		}
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Err, `no sessions yet; start one with tern ask "..."`)
		return nil
	}
	tw := tabwriter.NewWriter(env.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMODEL\tTURNS\tTOKENS\tFIRST PROMPT")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"),
			s.Model, s.Turns, s.PromptTokens+s.EvalTokens, words.OneLine(s.Title, 60))
	}
	return tw.Flush()
}
