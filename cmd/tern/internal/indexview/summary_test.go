package indexview

import (
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/index"
)

func TestWriteSummary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		st   index.Stats
		s    index.Status
		want string
	}{
		{
			name: "nothing changed",
			st:   index.Stats{Seen: 12, Unchanged: 12, Elapsed: 31415 * time.Microsecond},
			s:    index.Status{Root: "/r", Chunks: 80, Embedded: 80, Model: "nomic-embed-text"},
			want: "index of /r is up to date (checked in 31ms)\n" +
				"  files    12 seen · 0 indexed · 12 unchanged · 0 skipped\n" +
				"  chunks   0 written · 80 in the index\n" +
				"  vectors  80 of 80 chunks embedded with nomic-embed-text\n",
		},
		{
			name: "a first build, lexical, with skipped files by reason",
			st: index.Stats{Seen: 20, Indexed: 15, Chunks: 90, Elapsed: 3 * time.Second,
				Skipped: map[string]int{"generated": 1, "binary": 4}},
			s: index.Status{Root: "/r", Chunks: 90},
			want: "indexed /r in 3s, 5 files/s\n" +
				"  files    20 seen · 15 indexed · 0 unchanged · 5 skipped (4 binary, 1 generated)\n" +
				"  chunks   90 written · 90 in the index\n" +
				"  vectors  none: search is lexical only\n",
		},
		{
			name: "under a second: no rate; removed files; new vectors",
			st:   index.Stats{Seen: 10, Indexed: 2, Removed: 1, Chunks: 6, Embedded: 6, Elapsed: 500 * time.Millisecond},
			s:    index.Status{Root: "/r", Chunks: 50, Embedded: 50, Model: "m"},
			want: "indexed /r in 500ms\n" +
				"  files    10 seen · 2 indexed · 8 unchanged · 0 skipped · 1 removed\n" +
				"  chunks   6 written · 50 in the index\n" +
				"  vectors  50 of 50 chunks embedded with m · 6 new\n",
		},
		{
			name: "re-embedded with another model",
			st:   index.Stats{Seen: 3, Embedded: 9, PreviousModel: "old", Elapsed: 2 * time.Second},
			s:    index.Status{Root: "/r", Chunks: 9, Embedded: 9, Model: "new"},
			want: "indexed /r in 2s\n" +
				"  files    3 seen · 0 indexed · 3 unchanged · 0 skipped\n" +
				"  chunks   0 written · 9 in the index\n" +
				"  vectors  9 of 9 chunks embedded with new · 9 new (re-embedded: was old)\n",
		},
		{
			name: "an index an older tern made is read again",
			st:   index.Stats{Seen: 4, Indexed: 4, Chunks: 8, Reformatted: true, Elapsed: 200 * time.Millisecond},
			s:    index.Status{Root: "/r", Chunks: 8, Embedded: 8, Model: "m"},
			want: "indexed /r in 200ms (made by an older tern: every file read again)\n" +
				"  files    4 seen · 4 indexed · 0 unchanged · 0 skipped\n" +
				"  chunks   8 written · 8 in the index\n" +
				"  vectors  8 of 8 chunks embedded with m\n",
		},
		{
			name: "a model named but nothing embedded is lexical",
			st:   index.Stats{Seen: 1, Indexed: 1, Chunks: 1},
			s:    index.Status{Root: "/r", Chunks: 1, Model: "m"},
			want: "indexed /r in 0s\n" +
				"  files    1 seen · 1 indexed · 0 unchanged · 0 skipped\n" +
				"  chunks   1 written · 1 in the index\n" +
				"  vectors  none: search is lexical only\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			WriteSummary(&b, tt.st, tt.s)
			if b.String() != tt.want {
				t.Errorf("summary:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestWritePlan(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ why, previous, want string }{
		{"", "", ""},
		{"Ollama is not running", "", "tern: indexing without embeddings (search will be lexical only): Ollama is not running; then run tern index again to add them\n"},
		{"", "old-model", "tern: the index was embedded with old-model; re-embedding every chunk with nomic-embed-text\n"},
	} {
		var b strings.Builder
		WritePlan(&b, tt.why, tt.previous, "nomic-embed-text")
		if b.String() != tt.want {
			t.Errorf("WritePlan(%q, %q) = %q, want %q", tt.why, tt.previous, b.String(), tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		st   index.Stats
		s    index.Status
		want string
	}{
		{index.Stats{Indexed: 1, Unchanged: 4}, index.Status{Files: 5, Chunks: 1},
			"index: 1 file read, 4 unchanged, 0 removed; 5 files and 1 chunk in all"},
		{index.Stats{Indexed: 3, Removed: 2}, index.Status{Files: 1, Chunks: 30, Embedded: 30, Model: "m"},
			"index: 3 files read, 0 unchanged, 2 removed; 1 file and 30 chunks in all, 30 embedded with m"},
		{index.Stats{PreviousModel: "old"}, index.Status{Files: 2, Chunks: 2, Embedded: 2, Model: "new"},
			"index: 0 files read, 0 unchanged, 0 removed; 2 files and 2 chunks in all, re-embedded with new (was old)"},
		{index.Stats{Indexed: 2, Reformatted: true}, index.Status{Files: 2, Chunks: 3},
			"index: 2 files read, 0 unchanged, 0 removed; 2 files and 3 chunks in all (made by an older tern: every file read again)"},
	} {
		if got := Line(tt.st, tt.s); got != tt.want {
			t.Errorf("Line = %q\nwant  %q", got, tt.want)
		}
	}
}
