package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/searchcmd"
	"github.com/ternhq/tern/rag"
)

// searchCommand is tern search, run over the workspace's code index.
func (a *app) searchCommand() *cobra.Command {
	return searchcmd.NewCmd(func(ctx context.Context, o *searchcmd.Options) error {
		return runCommand(ctx, a, o, a.search)
	}, func(err error) error { return exitCodeError{exitUsage, err} })
}

func (a *app) search(ctx context.Context, o *searchcmd.Options) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	return searchcmd.Run(ctx, searchcmd.Env{Out: a.stdout, Err: a.stderr, Open: a.openSearchIndex}, o)
}

// openSearchIndex opens the workspace's code index for tern search, with
// the config's embedding model for the index and embedModel, when set,
// for the query.
func (a *app) openSearchIndex(noEmbed bool, embedModel string) (searchcmd.Index, string, error) {
	c, err := a.openCodeIndex("", noEmbed)
	if err != nil {
		return nil, "", err
	}
	if embedModel != "" {
		c.QueryModel = rag.NewEmbedModel(embedModel).Key()
	}
	return c, c.Root, nil
}
