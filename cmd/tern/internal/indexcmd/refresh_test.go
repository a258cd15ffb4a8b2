package indexcmd

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// refresh runs the TUI's /index over f's repository and returns its line
// and the progress it reported, one "what: done/total unit" a call.
func (f *fixture) refresh(t *testing.T, ctx context.Context, embedModel string) (string, []string, error) {
	t.Helper()
	c, err := f.env.Open(embedModel, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var progress []string
	line, err := Refresh(ctx, c, func(s Step) {
		progress = append(progress, fmt.Sprintf("%s: %d/%d %s", s.What, s.Done, s.Total, s.Unit))
	})
	return line, progress, err
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.NomicEmbed())
	line, progress, err := f.refresh(t, t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "index: 2 files read, 0 unchanged, 0 removed; 2 files and ") || !strings.Contains(line, " embedded with nomic-embed-text") ||
		!strings.HasSuffix(line, "; the model gets search_code from the next session on (/new)") {
		t.Errorf("first /index: %q", line)
	}
	// Each step in its own words and units: files read, then chunks
	// embedded, never chunks counted as files.
	var read, embedded bool
	for _, p := range progress {
		switch {
		case strings.HasPrefix(p, "step 1 of 2: reading files: ") && strings.HasSuffix(p, "/2 files"):
			read = !embedded
		case strings.HasPrefix(p, "step 2 of 2: embedding with nomic-embed-text") && strings.HasSuffix(p, " chunks"):
			embedded = true
		default:
			t.Errorf("progress %q", p)
		}
	}
	if !read || !embedded {
		t.Errorf("progress %q: want the files read, then the chunks embedded", progress)
	}

	line, _, err = f.refresh(t, t.Context(), "")
	if err != nil || !strings.HasPrefix(line, "index: 0 files read, 2 unchanged, 0 removed; 2 files and ") || strings.Contains(line, "search_code") {
		t.Errorf("second /index: %q, %v; the model has search_code already", line, err)
	}
}

func TestRefreshWithoutEmbeddings(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.Qwen3())
	line, progress, err := f.refresh(t, t.Context(), "qwen3:8b")
	if err != nil || !strings.Contains(line, "; no embeddings, search is lexical only: qwen3:8b is not an embedding model") {
		t.Errorf("%q, %v", line, err)
	}
	for _, p := range progress {
		if strings.Contains(p, "embedding") {
			t.Errorf("progress %q without embeddings", progress)
		}
	}
}

func TestRefreshStopped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.NomicEmbed())
	c, err := f.env.Open("", true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(t.Context())
	_, err = Refresh(ctx, c, func(Step) { cancel() })
	if err == nil || err.Error() != "stopped; the index is consistent: /index again finishes it" {
		t.Errorf("an /index stopped while it read files: %v", err)
	}
}
