package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/index"
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
func (a *app) openCodeIndex(flags indexFlags) (*codeIndex, config.Config, error) {
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
	c := newCodeIndex(root, cfg)
	c.setNoEmbed(flags.noEmbed)
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
	c.onWait = func(holder string) {
		fmt.Fprintf(a.stderr, "tern: the index is being updated by %s; waiting for it to finish (Ctrl+C stops)\n", holder)
	}
	if o.rebuild {
		if err := removeIndex(c.DBPath()); err != nil {
			return err
		}
		fmt.Fprintln(a.stderr, "tern: deleted .tern/index.db; building it from scratch")
	}
	ix, err := c.Open(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()

	plan, err := c.plan(ctx, ix)
	if err != nil {
		return err
	}
	switch {
	case plan.why != "":
		fmt.Fprintf(a.stderr, "tern: indexing without embeddings (search will be lexical only): %s; then run tern index again to add them\n", plan.why)
	case plan.previous != "":
		fmt.Fprintf(a.stderr, "tern: the index was embedded with %s; re-embedding every chunk with %s\n", plan.previous, plan.model.Key())
	}
	view := newProgressView(a.stderr, isTerminal(a.stderr), plan.model.Key())
	st, err := c.update(ctx, ix, plan, view.update)
	view.finish()
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
	writeIndexSummary(a.stdout, st, status)
	return nil
}

// removeIndex deletes an index database with its WAL files.
func removeIndex(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete the index: %w", err)
		}
	}
	return nil
}

// indexPlan is how an update embeds.
type indexPlan struct {
	// model is the embedding model; its zero value means none.
	model rag.EmbedModel
	// why says why there are no embeddings when some were wanted.
	why string
	// previous is the model of the vectors the update replaces.
	previous string
}

// plan decides whether an update of ix can embed, and with what.
func (c *codeIndex) plan(ctx context.Context, ix *index.Index) (indexPlan, error) {
	if c.noEmbed {
		return indexPlan{}, nil
	}
	if why := backend.CheckEmbed(ctx, c.client, c.want); why != "" {
		if ctx.Err() != nil {
			return indexPlan{}, ctx.Err()
		}
		return indexPlan{why: why}, nil
	}
	old, _, err := ix.Embedding(ctx)
	if err != nil {
		return indexPlan{}, rag.IndexProblem(err)
	}
	p := indexPlan{model: c.want}
	if old != "" && old != c.want.Key() {
		p.previous = old
	}
	return p, nil
}

// update runs an update of ix as planned.
func (c *codeIndex) update(ctx context.Context, ix *index.Index, p indexPlan, progress func(index.Progress)) (index.Stats, error) {
	opts := index.Options{Progress: progress, OnWait: c.onWait}
	if p.model.Name != "" {
		opts.Embedder, opts.Model = backend.Embedder{Client: c.client}, p.model.Key()
	}
	return ix.Update(ctx, opts)
}

// writeIndexSummary prints what an update did and what the index holds.
func writeIndexSummary(w io.Writer, st index.Stats, s index.Status) {
	took := st.Elapsed.Round(time.Millisecond)
	if st.Indexed == 0 && st.Removed == 0 && st.Embedded == 0 {
		fmt.Fprintf(w, "index of %s is up to date (checked in %s)\n", s.Root, took)
	} else {
		rate := ""
		if secs := st.Elapsed.Seconds(); st.Indexed > 0 && secs >= 1 {
			rate = fmt.Sprintf(", %.0f files/s", float64(st.Indexed)/secs)
		}
		fmt.Fprintf(w, "indexed %s in %s%s\n", s.Root, took, rate)
	}
	skipped, reasons := 0, slices.Sorted(maps.Keys(st.Skipped))
	var why []string
	for _, r := range reasons {
		skipped += st.Skipped[r]
		why = append(why, fmt.Sprintf("%d %s", st.Skipped[r], r))
	}
	// The index counts an unchanged skipped file as both; here every file
	// seen is indexed, unchanged or skipped.
	unchanged := max(st.Seen-st.Indexed-skipped, 0)
	files := fmt.Sprintf("%d seen · %d indexed · %d unchanged · %d skipped", st.Seen, st.Indexed, unchanged, skipped)
	if len(why) > 0 {
		files += " (" + strings.Join(why, ", ") + ")"
	}
	if st.Removed > 0 {
		files += fmt.Sprintf(" · %d removed", st.Removed)
	}
	fmt.Fprintf(w, "  files    %s\n", files)
	fmt.Fprintf(w, "  chunks   %d written · %d in the index\n", st.Chunks, s.Chunks)
	switch {
	case s.Model == "" || s.Embedded == 0 && st.Embedded == 0:
		fmt.Fprintf(w, "  vectors  none: search is lexical only\n")
	default:
		line := fmt.Sprintf("%d of %d chunks embedded with %s", s.Embedded, s.Chunks, s.Model)
		if st.Embedded > 0 {
			line += fmt.Sprintf(" · %d new", st.Embedded)
		}
		if st.PreviousModel != "" {
			line += fmt.Sprintf(" (re-embedded: was %s)", st.PreviousModel)
		}
		fmt.Fprintf(w, "  vectors  %s\n", line)
	}
}

// progressView shows an update's progress on stderr: on a terminal, a bar
// per phase with counts, rate and elapsed time; elsewhere (a pipe, a log,
// a test) a line every plainEvery, so that a long run shows it is alive
// and a short one prints nothing.
type progressView struct {
	w     io.Writer
	tty   bool
	model string
	start time.Time

	bar   *progressbar.ProgressBar
	phase index.Phase
	last  time.Time
}

// plainEvery paces progress lines when stderr is not a terminal.
const plainEvery = 10 * time.Second

func newProgressView(w io.Writer, tty bool, model string) *progressView {
	now := time.Now()
	return &progressView{w: w, tty: tty, model: model, start: now, last: now, phase: -1}
}

// update takes a progress report; the index calls it from one goroutine.
func (v *progressView) update(p index.Progress) {
	if !v.tty {
		if p.Phase != index.PhaseDone && time.Since(v.last) >= plainEvery {
			v.last = time.Now()
			fmt.Fprintf(v.w, "tern: index: %s\n", progressText(p, v.model))
		}
		return
	}
	if p.Phase != v.phase {
		v.finish()
		v.phase = p.Phase
		switch {
		case p.Phase == index.PhaseChunk && p.Changed > 0:
			v.bar = v.newBar(p.Changed, "files")
		case p.Phase == index.PhaseEmbed && p.ToEmbed > 0:
			v.bar = v.newBar(p.ToEmbed, "chunks")
		}
	}
	if v.bar == nil {
		return
	}
	switch p.Phase {
	case index.PhaseChunk:
		v.bar.Describe(fmt.Sprintf("indexing · %d chunks", p.Chunks))
		_ = v.bar.Set(p.Done)
	case index.PhaseEmbed:
		v.bar.Describe("embedding with " + v.model)
		_ = v.bar.Set(p.Embedded)
	}
}

func (v *progressView) newBar(max int, unit string) *progressbar.ProgressBar {
	return progressbar.NewOptions(max,
		progressbar.OptionSetWriter(v.w),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(true),
	)
}

// finish clears the bar of the phase that ended.
func (v *progressView) finish() {
	if v.bar != nil {
		_ = v.bar.Finish()
		v.bar = nil
	}
}

// progressText is one line of progress for logs.
func progressText(p index.Progress, model string) string {
	el := p.Elapsed.Round(time.Second)
	switch p.Phase {
	case index.PhaseScan:
		return fmt.Sprintf("scanning: %d files seen, %s", p.Seen, el)
	case index.PhaseEmbed:
		return fmt.Sprintf("embedding with %s: %d/%d chunks, %s", model, p.Embedded, p.ToEmbed, el)
	}
	return fmt.Sprintf("indexing: %d/%d files, %d chunks, %s", p.Done, p.Changed, p.Chunks, el)
}
