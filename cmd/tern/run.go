package main

import (
	"context"
	"os"
	"runtime"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/context/budget"
)

// startRun opens the workspace and the model, and creates a session or
// resumes the one o names: tern ask's session, and eval's. The config's
// rag turns RAG on too; --tier given moves a resumed session to it.
func (a *app) startRun(ctx context.Context, o runner.Options) (*runner.Run, error) {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config(root)
	if err != nil {
		return nil, err
	}
	if err := a.sayState(root, isTerminal(a.stdin) && isTerminal(a.stderr)); err != nil {
		return nil, err
	}

	// The counter builds its encoder only when something must be counted:
	// the agent sends its first request by upper bounds when they fit, and
	// has the encoder built while the model reads it.
	counter, err := budget.NewCounter()
	if err != nil {
		return nil, err
	}
	o.RAG = o.RAG || cfg.RAG
	o.TierFlag = a.cmd.PersistentFlags().Changed("tier")
	return runner.Open(ctx, a.runEnv(root, cfg, func() (*budget.Counter, error) { return counter, nil }), o)
}

// runEnv is what every session this process opens shares, with what only
// the command line knows: --vram, tern's own binary as the reaper of the
// commands the model runs, and the PATH its language servers are found
// on.
func (a *app) runEnv(root string, cfg config.Config, counter func() (*budget.Counter, error)) runner.Env {
	return runner.Env{Root: root, Config: cfg, Counter: counter, VRAM: a.vramBytes, Reaper: reaper(), Path: a.getenv("PATH")}
}

// reaper is tern's own binary, which runs each command as a subreaper
// (main's tools.ReaperFlag), on Linux; "" elsewhere.
func reaper() string {
	if exe, err := os.Executable(); err == nil && runtime.GOOS == "linux" {
		return exe
	}
	return ""
}
