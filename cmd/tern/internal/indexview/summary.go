package indexview

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/index"
)

// WritePlan says, before an update, why it will not embed (why, when
// embeddings were wanted but cannot be made) or that it re-embeds every
// chunk with model because the index was embedded with previous. It
// writes nothing when the update embeds as the index already does.
func WritePlan(w io.Writer, why, previous, model string) {
	switch {
	case why != "":
		fmt.Fprintf(w, "tern: indexing without embeddings (search will be lexical only): %s; then run tern index again to add them\n", why)
	case previous != "":
		fmt.Fprintf(w, "tern: the index was embedded with %s; re-embedding every chunk with %s\n", previous, model)
	}
}

// WriteSummary prints what an update did (st) and what the index holds
// after it (s).
func WriteSummary(w io.Writer, st index.Stats, s index.Status) {
	took := st.Elapsed.Round(time.Millisecond)
	if st.Indexed == 0 && st.Removed == 0 && st.Embedded == 0 {
		fmt.Fprintf(w, "index of %s is up to date (checked in %s)\n", s.Root, took)
	} else {
		rate := ""
		if secs := st.Elapsed.Seconds(); st.Indexed > 0 && secs >= 1 {
			rate = fmt.Sprintf(", %.0f files/s", float64(st.Indexed)/secs)
		}
		fmt.Fprintf(w, "indexed %s in %s%s%s\n", s.Root, took, rate, reformatted(st, " (", ")"))
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

// Line is the summary on one line, as the TUI's /index shows it: "index:
// 3 files read, 10 unchanged, 0 removed; 13 files and 80 chunks in all",
// with the embeddings made.
func Line(st index.Stats, s index.Status) string {
	line := fmt.Sprintf("index: %s read, %d unchanged, %d removed; %s and %s in all",
		words.Count(st.Indexed, "file"), st.Unchanged, st.Removed, words.Count(s.Files, "file"), words.Count(s.Chunks, "chunk"))
	switch {
	case st.PreviousModel != "":
		line += fmt.Sprintf(", re-embedded with %s (was %s)", s.Model, st.PreviousModel)
	case s.Embedded > 0:
		line += fmt.Sprintf(", %d embedded with %s", s.Embedded, s.Model)
	}
	return line + reformatted(st, " (", ")")
}

// reformatted says, between before and after, that the update read every
// file again because an older tern made the index.
func reformatted(st index.Stats, before, after string) string {
	if !st.Reformatted {
		return ""
	}
	return before + "made by an older tern: every file read again" + after
}
