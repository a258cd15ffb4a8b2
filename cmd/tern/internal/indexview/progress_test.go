package indexview

import (
	"bytes"
	"strings"
	"testing"
	"time"

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
