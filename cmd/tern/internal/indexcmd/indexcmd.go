// Package indexcmd is the `tern index` command, in the cli/cli manner:
// Options (its argument and flags), NewCmd (the cobra command, handing
// the parsed Options to the run it is given, so that tests parse command
// lines without running anything) and Run (an update of the workspace's
// code index: its plan, progress, problems and summary). Refresh is the
// same update as the TUI's /index makes it, told in one line.
//
// Package main gives Run the index (Env.Open) and maps ErrInterrupted to
// exit 130. indexcmd imports codeindex, indexview, backend (the error of
// an embedding that stopped), index (the phases of progress) and rag,
// nothing else of tern.
package indexcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/indexview"
	"github.com/ternhq/tern/rag"
)

// Options are tern index's argument and flags.
type Options struct {
	// Dir, when given, is the workspace to index instead of --dir's.
	Dir string
	// EmbedModel, when set, embeds with this model instead of the
	// config's (--embed-model); NoEmbed builds a lexical index.
	EmbedModel string
	NoEmbed    bool
	// Rebuild deletes the index and builds it from scratch.
	Rebuild bool
}

// NewCmd returns the tern index command. It hands the options it parsed
// to run.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Build or update the repository's search index",
		Long: `Build or update the index of the repository at DIR (default: the workspace)
in .tern/index.db (or, for a read-only workspace, under tern's state directory
in ~/.local/state/tern): files cut along their functions, types and sections, a
full-text index, and embedding vectors from an Ollama embedding model
(--embed-model, default nomic-embed-text) for semantic search.

Only files changed since the last run are read again, and only new code is
embedded, so a run after a small change takes a moment. Without Ollama or the
embedding model the index is built for lexical search, and tern says what to
install; a later run adds the embeddings. Progress goes to stderr, the
summary to stdout. Ctrl+C stops at once and leaves a consistent index that
the next run completes (exit 130).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("index accepts one directory at most, not %d arguments (%s)", len(args), strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.EmbedModel, "embed-model", "", "Ollama embedding model to embed with (default: the config's embed_model, nomic-embed-text)")
	cmd.Flags().BoolVar(&o.NoEmbed, "no-embed", false, "no embeddings: lexical search only")
	cmd.Flags().BoolVar(&o.Rebuild, "rebuild", false, "delete the index and build it from scratch (for a damaged index)")
	return cmd
}

// ErrInterrupted is Run's error when the update was cancelled (Ctrl+C):
// what it did is kept, and the next run completes it.
var ErrInterrupted = errors.New("interrupted; the index is consistent: run tern index again to finish")

// Env is what Run works with.
type Env struct {
	// Out gets the summary; Err the notices and the progress, drawn as
	// bars on Bar (Err when nil) when TTY says it is a terminal.
	Out, Err, Bar io.Writer
	TTY           bool
	// Open returns the workspace's code index, embedding with embedModel
	// when set, lexical with noEmbed.
	Open func(embedModel string, noEmbed bool) (*codeindex.Index, error)
}

// Run updates the index, waiting for another process's update to end;
// says how it embeds, shows progress, and prints the files it could not
// read and the summary. An embedding that stops is said, not an error:
// the code read so far is indexed.
func Run(ctx context.Context, env Env, o *Options) error {
	c, err := env.Open(o.EmbedModel, o.NoEmbed)
	if err != nil {
		return err
	}
	c.OnWait = func(holder string) {
		fmt.Fprintf(env.Err, "tern: the index is being updated by %s; waiting for it to finish (Ctrl+C stops)\n", holder)
	}
	if o.Rebuild {
		if err := codeindex.Remove(c.DBPath()); err != nil {
			return err
		}
		shown := c.DBPath()
		if rel, err := filepath.Rel(c.Root, shown); err == nil && !strings.HasPrefix(rel, "..") {
			shown = rel
		}
		fmt.Fprintf(env.Err, "tern: deleted %s; building it from scratch\n", shown)
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
	indexview.WritePlan(env.Err, plan.Why, plan.Previous, plan.Model.Key())
	bar := env.Err
	if env.TTY && env.Bar != nil {
		bar = env.Bar
	}
	view := indexview.NewProgress(bar, env.TTY, plan.Model.Key())
	st, err := c.Update(ctx, ix, plan, view.Update)
	view.Finish()
	var ee backend.EmbedError
	switch {
	case errors.Is(err, context.Canceled):
		return ErrInterrupted
	case errors.As(err, &ee):
		fmt.Fprintf(env.Err, "tern: embedding stopped: %s; the code read so far is indexed, and tern index adds the missing embeddings when run again\n", ee.Error())
	case err != nil:
		return rag.IndexProblem(err)
	}
	for _, p := range st.Problems {
		fmt.Fprintf(env.Err, "tern: %s\n", p)
	}
	status, err := ix.Status(ctx)
	if err != nil {
		return rag.IndexProblem(err)
	}
	indexview.WriteSummary(env.Out, st, status)
	return nil
}
