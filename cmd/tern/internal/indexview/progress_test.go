package indexview

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ternhq/tern/index"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	var plain bytes.Buffer
	v := NewProgress(&plain, false, "m")
	for _, p := range []index.Progress{{Phase: index.PhaseChunk, Changed: 10, Done: 5}, {Phase: index.PhaseDone}} {
		v.Update(p)
	}
	v.Finish()
	if plain.Len() != 0 {
		t.Errorf("a short run off a terminal printed progress:\n%s", plain.String())
	}
	v.last = time.Now().Add(-plainEvery)
	v.Update(index.Progress{Phase: index.PhaseEmbed, ToEmbed: 100, Embedded: 40, Elapsed: 12 * time.Second})
	if got := plain.String(); got != "tern: index: embedding with m: 40/100 chunks, 12s\n" {
		t.Errorf("a long run off a terminal printed %q", got)
	}

	var tty bytes.Buffer
	v = NewProgress(&tty, true, "nomic-embed-text")
	v.Update(index.Progress{Phase: index.PhaseScan, Seen: 3})
	v.Update(index.Progress{Phase: index.PhaseChunk, Changed: 10, Done: 4, Chunks: 17})
	v.Update(index.Progress{Phase: index.PhaseEmbed, ToEmbed: 17, Embedded: 8})
	v.Update(index.Progress{Phase: index.PhaseDone})
	v.Finish()
	for _, want := range []string{"indexing · 17 chunks", "/10, ", "files", "embedding with nomic-embed-text", "/17, ", "chunks/"} {
		if !strings.Contains(tty.String(), want) {
			t.Errorf("the terminal bar lacks %q:\n%q", want, tty.String())
		}
	}
}

// TestProgressLinesArePaced checks, on a clock the test moves, that off a
// terminal a line comes at most every plainEvery, one per phase's report,
// and none for the end.
func TestProgressLinesArePaced(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := NewProgress(&out, false, "m")
	v.now = func() time.Time { return clock }
	v.last = clock
	for _, step := range []struct {
		after time.Duration
		p     index.Progress
	}{
		{time.Second, index.Progress{Phase: index.PhaseScan, Seen: 10}},
		{10 * time.Second, index.Progress{Phase: index.PhaseScan, Seen: 500, Elapsed: 11 * time.Second}},
		{5 * time.Second, index.Progress{Phase: index.PhaseChunk, Changed: 40, Done: 2}},
		{5 * time.Second, index.Progress{Phase: index.PhaseChunk, Changed: 40, Done: 30, Chunks: 200, Elapsed: 21 * time.Second}},
		{30 * time.Second, index.Progress{Phase: index.PhaseDone}},
	} {
		clock = clock.Add(step.after)
		v.Update(step.p)
	}
	want := "tern: index: scanning: 500 files seen, 11s\n" +
		"tern: index: indexing: 30/40 files, 200 chunks, 21s\n"
	if out.String() != want {
		t.Errorf("lines:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestProgressFitsANarrowTerminal: under 100 columns a bar says its
// counts without the rate, the times and the model, so that every redraw
// fits in 60 columns; at 60 columns the full line (about 100 cells)
// wrapped, and each redraw left a row behind. At 120 it says them all.
func TestProgressFitsANarrowTerminal(t *testing.T) {
	t.Parallel()
	ansi := regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
	for _, cols := range []int{60, 120} {
		var tty bytes.Buffer
		v := NewProgress(&tty, true, "nomic-embed-text (task prefixes)")
		v.columns = func() int { return cols }
		v.Update(index.Progress{Phase: index.PhaseChunk, Changed: 10500, Done: 9270, Chunks: 65520})
		v.Update(index.Progress{Phase: index.PhaseEmbed, ToEmbed: 66240, Embedded: 58580})
		v.Finish()
		out := ansi.ReplaceAllString(tty.String(), "")
		var widest string
		for _, row := range strings.FieldsFunc(out, func(r rune) bool { return r == '\r' || r == '\n' }) {
			if row = strings.TrimRight(row, " "); utf8.RuneCountInString(row) > utf8.RuneCountInString(widest) {
				widest = row
			}
		}
		switch n := utf8.RuneCountInString(widest); {
		case cols == 60 && (n > 60 || !strings.Contains(out, "embedding") || !strings.Contains(out, "/66240)")):
			t.Errorf("at 60 columns the widest row is %d cells: %q\n%q", n, widest, out)
		case cols == 120 && (!strings.Contains(out, "embedding with nomic-embed-text") || !strings.Contains(out, "chunks/")):
			t.Errorf("at 120 columns the bar lacks the model or the rate:\n%q", out)
		}
	}
}
