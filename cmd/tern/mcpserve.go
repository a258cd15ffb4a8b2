package main

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/mcpserve"
	"github.com/ternhq/tern/cmd/tern/internal/versioncmd"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/rag"
)

// mcpCommand is tern mcp: the workspace's index as an MCP server.
func (a *app) mcpCommand() *cobra.Command {
	return mcpserve.NewCmd(func(cmd *cobra.Command, o *mcpserve.Options) error {
		return runCommand(cmd.Context(), a, o, a.serveMCP)
	})
}

func (a *app) serveMCP(ctx context.Context, _ *mcpserve.Options) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	cfg, err := a.config(root)
	if err != nil {
		return err
	}
	code := codeindex.New(root, cfg)
	defer code.Close()
	ix := mcpIndex{code: code, counter: sync.OnceValues(budget.NewCounter)}
	err = mcpserve.Serve(ctx, ix, versioncmd.String(), io.NopCloser(a.stdin), nopWriteCloser{a.stdout})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// mcpIndex is the code index as tern mcp's tools use it.
type mcpIndex struct {
	code    *codeindex.Index
	counter func() (*budget.Counter, error)
}

func (m mcpIndex) SearchCode(ctx context.Context, query string, k int, prefix string, budget int) (string, string, error) {
	return m.code.SearchCode(ctx, query, k, prefix, budget)
}

func (m mcpIndex) RepoMap(ctx context.Context, tokens int) (string, error) {
	ix, err := m.code.Open(ctx, false)
	if errors.Is(err, rag.ErrNoIndex) {
		return "", errors.New("the repository has no index; build one with `tern index`")
	}
	if err != nil {
		return "", rag.IndexProblem(err)
	}
	counter, err := m.counter()
	if err != nil {
		return "", err
	}
	return rag.RepoMap(ctx, ix, tokens, counter)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
