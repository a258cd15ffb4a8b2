package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/doctor"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// doctorOptions are tern doctor's flags: it has none.
type doctorOptions struct{}

func (a *app) doctorCommand() *cobra.Command {
	o := &doctorOptions{}
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check Ollama, the models, the context plan and the workspace",
		Long: `Check that Ollama answers, which models are installed and what they can do,
which model tern would use with which context window (and the arithmetic
behind it), whether an embedding model is there for semantic search, and the
state of the workspace and its search index. Every problem comes with the command that fixes it.
Exits 1 when tern could not run a turn as configured.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), a, o, func(ctx context.Context, _ *doctorOptions) error { return a.doctor(ctx) })
		},
	}
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
		// Doctor has no one to ask: a server the repository's .tern.toml
		// names starts only with --yes.
		MCP: func(cfg config.Config, ws *tools.Workspace) (*mcp.Manager, error) {
			return newMCPManager(cfg, ws, nil, trustGate(root, headless.Approver{Yes: a.yes || a.yolo, Command: "tern doctor"}))
		},
	})
	if errors.Is(err, doctor.ErrProblems) {
		return exitCodeError{code: exitError}
	}
	return err
}
