package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/rag"
)

// index reports the workspace's search index: its size, its embeddings
// and whether they match the configured model.
func (d *doctor) index(ctx context.Context, cfg config.Config) {
	r := d.r
	c := openIndex(d.Root, cfg)
	if !c.Exists() {
		r.note("Index", "not built; run `tern index` for tern search, search_code and RAG")
		return
	}
	ix, err := c.Open(ctx, false)
	if err != nil {
		r.bad("Index", "%v", err)
		return
	}
	defer c.Close()
	st, err := ix.Status(ctx)
	if err != nil {
		r.bad("Index", "%v", rag.IndexProblem(err))
		return
	}
	updated := "never completed; run `tern index`"
	if !st.Updated.IsZero() {
		updated = "updated " + ago(time.Since(st.Updated))
	}
	embedded := "no embeddings (lexical search only)"
	if st.Model != "" && st.Embedded > 0 {
		embedded = fmt.Sprintf("%d embedded with %s", st.Embedded, st.Model)
	}
	r.ok("Index", "%s: %d files, %d chunks, %s; %s", d.shortPath(c.DBPath()), st.Files, st.Chunks, embedded, updated)
	if st.OldFormat {
		r.detail("an older tern made the index: `tern index` reads its files again, for better search")
	}
	want := c.Model
	switch {
	case st.Model != "" && st.Model != want:
		r.detail("the index was embedded with %s, but embed_model is %s: `tern index` re-embeds it", st.Model, want)
	case st.Model != "" && st.Embedded < st.Chunks:
		r.detail("%d chunks have no embedding yet: `tern index` adds them", st.Chunks-st.Embedded)
	}
}

// indexVectors returns the embedding model of the workspace index's
// vectors and how many it holds; 0 when there is no index or no vector.
func indexVectors(ctx context.Context, root string, cfg config.Config) (model string, vectors int) {
	c := openIndex(root, cfg)
	if !c.Exists() {
		return "", 0
	}
	ix, err := c.Open(ctx, false)
	if err != nil {
		return "", 0
	}
	defer c.Close()
	st, err := ix.Status(ctx)
	if err != nil || st.Model == "" {
		return "", 0
	}
	return rag.ParseEmbedKey(st.Model).Name, st.Embedded
}

// openIndex is the workspace's index as cfg configures it, to read its
// status: doctor embeds nothing.
func openIndex(root string, cfg config.Config) *rag.Workspace {
	return rag.NewWorkspace(root, nil, rag.NewEmbedModel(cfg.EmbedModel).Key())
}

// ago says how long ago something was, roughly.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}
