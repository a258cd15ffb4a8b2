package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/doctor"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/lsp"
	"github.com/ternhq/tern/tools/mcp"
)

func (a *app) doctorCommand() *cobra.Command {
	return doctor.NewCmd(func(ctx context.Context, o *doctor.Options) error {
		return runCommand(ctx, a, o, func(ctx context.Context, _ *doctor.Options) error { return a.doctor(ctx) })
	})
}

// doctor runs tern doctor's checks (cmd/tern/internal/doctor) with what
// only the command line knows: the flags over the config, --vram, and
// whether --yes lets a repository's MCP servers start.
func (a *app) doctor(ctx context.Context) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	err = doctor.Run(ctx, doctor.Env{
		Root:      root,
		Getenv:    a.getenv,
		Out:       a.stdout,
		Configure: a.overrideConfig,
		VRAM:      a.vramBytes,
		VRAMFrom: func(ctx context.Context, cfg config.Config) string {
			_, from := backend.VRAMFrom(ctx, cfg, a.cmd.PersistentFlags().Changed("vram"))
			return from
		},
		Helper: reaper(),
		// Doctor has no one to ask: a server the repository's .tern.toml
		// names starts only with --yes.
		MCP: func(cfg config.Config, ws *tools.Workspace) (*mcp.Manager, error) {
			return runner.NewMCP(root, cfg, ws, headless.Approver{Yes: a.yes || a.yolo, Command: "tern doctor"})
		},
		LanguageServers: func(cfg config.Config) ([]lsp.Server, error) { return runner.LanguageServers(cfg, a.getenv("PATH")) },
	})
	if errors.Is(err, doctor.ErrProblems) {
		return exitCodeError{code: exitError}
	}
	return err
}
