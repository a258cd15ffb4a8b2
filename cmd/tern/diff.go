package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/diffcmd"
)

// diffCommand is tern diff, in the workspace.
func (a *app) diffCommand() *cobra.Command {
	return diffcmd.NewCmd(func(ctx context.Context, o *diffcmd.Options) error {
		return runCommand(ctx, a, o, a.diff)
	})
}

func (a *app) diff(ctx context.Context, o *diffcmd.Options) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	return diffcmd.Run(ctx, diffcmd.Env{Root: root, Out: a.stdout, Err: a.stderr}, o)
}
