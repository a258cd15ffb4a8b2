package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/indexcmd"
)

// indexCommand is tern index, updating the workspace's code index.
func (a *app) indexCommand() *cobra.Command {
	return indexcmd.NewCmd(func(ctx context.Context, o *indexcmd.Options) error {
		return runCommand(ctx, a, o, a.index)
	})
}

// openCodeIndex finds the workspace and its code index, embedding with
// embedModel when set, lexical with noEmbed.
func (a *app) openCodeIndex(embedModel string, noEmbed bool) (*codeindex.Index, error) {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config(root)
	if err != nil {
		return nil, err
	}
	if embedModel != "" {
		cfg.EmbedModel = embedModel
	}
	c := codeindex.New(root, cfg)
	c.SetNoEmbed(noEmbed)
	return c, nil
}

func (a *app) index(ctx context.Context, o *indexcmd.Options) error {
	if o.Dir != "" {
		a.dir = o.Dir
	}
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	if err := a.sayState(root, false); err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	err = indexcmd.Run(ctx, indexcmd.Env{Out: a.stdout, Err: a.stderr, Bar: a.rawStderr, TTY: isTerminal(a.rawStderr), Open: a.openCodeIndex}, o)
	if errors.Is(err, indexcmd.ErrInterrupted) {
		return exitCodeError{code: exitCanceled, err: err}
	}
	return err
}
