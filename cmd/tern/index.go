package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/indexview"
	"github.com/ternhq/tern/rag"
)

// indexFlags are the flags of tern index and tern search that choose the
// embedding model.
type indexFlags struct {
	embedModel string
	noEmbed    bool
}

func (f *indexFlags) add(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&f.embedModel, "embed-model", "", "Ollama embedding model "+what+" (default: the config's embed_model, nomic-embed-text)")
	cmd.Flags().BoolVar(&f.noEmbed, "no-embed", false, "no embeddings: lexical search only")
}

// indexOptions are tern index's argument and flags.
type indexOptions struct {
	// dir, when given, is the workspace to index instead of --dir's.
	dir     string
	embed   indexFlags
	rebuild bool
}

func (a *app) indexCommand() *cobra.Command {
	o := &indexOptions{}
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Build or update the repository's search index",
		Long: `Build or update the index of the repository at DIR (default: the workspace)
in .tern/index.db: files cut along their functions, types and sections, a
full-text index, and embedding vectors from an Ollama embedding model
(--embed-model, default nomic-embed-text) for semantic search.

Only files changed since the last run are read again, and only new code is
embedded, so a run after a small change takes a moment. Without Ollama or the
embedding model the index is built for lexical search, and tern says what to
install; a later run adds the embeddings. Progress goes to stderr, the
summary to stdout. Ctrl+C stops at once and leaves a consistent index that
the next run completes (exit 130).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.dir = args[0]
			}
			return runCommand(cmd.Context(), a, o, a.index)
		},
	}
	o.embed.add(cmd, "to embed with")
	cmd.Flags().BoolVar(&o.rebuild, "rebuild", false, "delete the index and build it from scratch (for a damaged index)")
	return cmd
}

// openCodeIndex finds the workspace and its code index with the flags'
// embedding model.
func (a *app) openCodeIndex(flags indexFlags) (*codeindex.Index, config.Config, error) {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, config.Config{}, err
	}
	cfg, err := a.config(root)
	if err != nil {
		return nil, cfg, err
	}
	if flags.embedModel != "" {
		cfg.EmbedModel = flags.embedModel
	}
	c := codeindex.New(root, cfg)
	c.SetNoEmbed(flags.noEmbed)
	return c, cfg, nil
}

func (a *app) index(ctx context.Context, o *indexOptions) error {
	if o.dir != "" {
		a.dir = o.dir
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	c, _, err := a.openCodeIndex(o.embed)
	if err != nil {
		return err
	}
	c.OnWait = func(holder string) {
		fmt.Fprintf(a.stderr, "tern: the index is being updated by %s; waiting for it to finish (Ctrl+C stops)\n", holder)
	}
	if o.rebuild {
		if err := codeindex.Remove(c.DBPath()); err != nil {
			return err
		}
		fmt.Fprintln(a.stderr, "tern: deleted .tern/index.db; building it from scratch")
	}
	ix, err := c.Open(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()

	plan, err := c.Plan(ctx, ix)
	if err != nil {
		return err
	}
	indexview.WritePlan(a.stderr, plan.Why, plan.Previous, plan.Model.Key())
	view := indexview.NewProgress(a.stderr, isTerminal(a.stderr), plan.Model.Key())
	st, err := c.Update(ctx, ix, plan, view.Update)
	view.Finish()
	var ee backend.EmbedError
	switch {
	case errors.Is(err, context.Canceled):
		return exitCodeError{code: exitCanceled, err: errors.New("interrupted; the index is consistent: run tern index again to finish")}
	case errors.As(err, &ee):
		fmt.Fprintf(a.stderr, "tern: embedding stopped: %s; the code read so far is indexed, and tern index adds the missing embeddings when run again\n", ee.Error())
	case err != nil:
		return rag.IndexProblem(err)
	}
	for _, p := range st.Problems {
		fmt.Fprintf(a.stderr, "tern: %s\n", p)
	}
	status, err := ix.Status(ctx)
	if err != nil {
		return rag.IndexProblem(err)
	}
	indexview.WriteSummary(a.stdout, st, status)
	return nil
}
