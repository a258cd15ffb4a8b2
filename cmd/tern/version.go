package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/versioncmd"
)

// versionCommand is tern version.
func (a *app) versionCommand() *cobra.Command {
	return versioncmd.NewCmd(func(ctx context.Context, o *versioncmd.Options) error {
		return runCommand(ctx, a, o, func(context.Context, *versioncmd.Options) error { return versioncmd.Run(a.stdout) })
	})
}
