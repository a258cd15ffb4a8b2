package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/session"
)

// sessionsOptions are tern sessions' flags.
type sessionsOptions struct {
	limit int
}

func (a *app) sessionsCommand() *cobra.Command {
	o := &sessionsOptions{}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List past sessions in this workspace",
		Long: `List the sessions stored in this workspace's .tern/tern.db, newest first.
Continue one with 'tern ask --resume ID "..."' (a unique prefix of the ID is enough).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), a, o, a.sessions)
		},
	}
	cmd.Flags().IntVarP(&o.limit, "limit", "n", 20, "most sessions to list")
	return cmd
}

func (a *app) sessions(ctx context.Context, o *sessionsOptions) error {
	limit := o.limit
	_, store, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	list, err := store.List(ctx, limit)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stderr, `no sessions yet; start one with tern ask "..."`)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMODEL\tTURNS\tTOKENS\tFIRST PROMPT")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"),
			s.Model, s.Turns, s.PromptTokens+s.EvalTokens, words.OneLine(s.Title, 60))
	}
	return tw.Flush()
}

// openStore opens the session store of the workspace, for commands that
// need no model.
func (a *app) openStore(ctx context.Context) (root string, store *session.Store, err error) {
	if root, err = a.workspaceRoot(); err != nil {
		return "", nil, err
	}
	store, err = session.OpenWorkspace(ctx, root)
	return root, store, err
}
