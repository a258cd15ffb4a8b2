package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/sessionscmd"
)

// sessionsCommand is tern sessions, over the workspace's session store.
func (a *app) sessionsCommand() *cobra.Command {
	return sessionscmd.NewCmd(func(ctx context.Context, o *sessionscmd.Options) error {
		return runCommand(ctx, a, o, a.sessions)
	})
}

func (a *app) sessions(ctx context.Context, o *sessionscmd.Options) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	return sessionscmd.Run(ctx, sessionscmd.Env{Root: root, Out: a.stdout, Err: a.stderr}, o)
}
