// Package indexview writes what `tern index` and `tern search` show: an
// update's plan notice, its progress (a bar on a terminal, a paced line
// elsewhere) and summary, and search hits as aligned text or one JSON
// object per hit. The TUI's /index shows the summary on one line.
//
// It formats index and rag values and decides nothing about them; it
// imports index and rag, nothing else of tern.
package indexview

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ternhq/tern/index"
)

// Progress shows an update's progress: on a terminal, a bar per phase
// with counts, rate and elapsed time; elsewhere (a pipe, a log, a test) a
// line every plainEvery, so that a long run shows it is alive and a short
// one prints nothing.
type Progress struct {
	w     io.Writer
	tty   bool
	model string
	now   func() time.Time

	bar   *progressbar.ProgressBar
	phase index.Phase
	last  time.Time
	// columns is the terminal's width, 0 when unknown.
	columns func() int
	// narrow is the layout of the current bar: counts only, under
	// wideColumns.
	narrow bool
}

// wideColumns is the terminal width from which a bar says the rate, the
// time and the embedding model as well as the counts: the whole line
// then takes up to about 100 cells. On a narrower terminal it wrapped,
// and every redraw left a row behind.
const wideColumns = 100

// plainEvery paces progress lines when the writer is not a terminal.
const plainEvery = 10 * time.Second

// NewProgress shows progress on w, with bars when tty; model names the
// embedding model in the embedding phase.
func NewProgress(w io.Writer, tty bool, model string) *Progress {
	v := &Progress{w: w, tty: tty, model: model, now: time.Now, phase: -1, columns: func() int { return columns(w) }}
	v.last = v.now()
	return v
}

// columns is the width of the terminal w writes to, 0 when w is not one.
func columns(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if c, _, err := term.GetSize(int(f.Fd())); err == nil {
			return c
		}
	}
	return 0
}

// Update takes a progress report; the index calls it from one goroutine.
func (v *Progress) Update(p index.Progress) {
	if !v.tty {
		if p.Phase != index.PhaseDone && v.now().Sub(v.last) >= plainEvery {
			v.last = v.now()
			fmt.Fprintf(v.w, "tern: index: %s\n", progressText(p, v.model))
		}
		return
	}
	if p.Phase != v.phase {
		v.Finish()
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
	switch {
	case p.Phase == index.PhaseChunk && v.narrow:
		v.bar.Describe("indexing")
		_ = v.bar.Set(p.Done)
	case p.Phase == index.PhaseChunk:
		v.bar.Describe(fmt.Sprintf("indexing · %d chunks", p.Chunks))
		_ = v.bar.Set(p.Done)
	case p.Phase == index.PhaseEmbed && v.narrow:
		v.bar.Describe("embedding")
		_ = v.bar.Set(p.Embedded)
	case p.Phase == index.PhaseEmbed:
		v.bar.Describe("embedding with " + v.model)
		_ = v.bar.Set(p.Embedded)
	}
}

func (v *Progress) newBar(max int, unit string) *progressbar.ProgressBar {
	c := v.columns()
	v.narrow = c > 0 && c < wideColumns
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(v.w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(true),
	}
	if !v.narrow {
		// On a narrow terminal the bar shrinks to what the line leaves it
		// (progressbar measures the terminal), but the text cannot.
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(unit),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true))
	}
	return progressbar.NewOptions(max, opts...)
}

// Finish clears the bar of the phase that ended.
func (v *Progress) Finish() {
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
