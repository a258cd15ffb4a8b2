package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/undocmd"
)

// undoCommand is tern undo, in the workspace, with --yes or --yolo
// answering for the user.
func (a *app) undoCommand() *cobra.Command {
	return undocmd.NewCmd(func(ctx context.Context, o *undocmd.Options) error {
		return runCommand(ctx, a, o, a.undo)
	})
}

func (a *app) undo(ctx context.Context, o *undocmd.Options) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	return undocmd.Run(ctx, undocmd.Env{Root: root, In: a.stdin, Out: a.stdout, Err: a.stderr, Yes: a.yes || a.yolo}, o)
}
