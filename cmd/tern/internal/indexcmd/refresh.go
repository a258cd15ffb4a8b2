package indexcmd

import (
	"context"
	"errors"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/indexview"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/rag"
)

// Step is how far one step of a Refresh has got: Done of Total things
// of Unit, and what the step is ("step 1 of 2: reading files").
type Step struct {
	Done, Total int
	Unit, What  string
}

// Refresh is the TUI's /index: an update of c, which gives up at once
// when another process is updating the index unless c.OnWait is set. It
// reports the progress of each step (reading files, then embedding
// chunks when it embeds), and returns one line: the summary, then what
// the user should know (an embedding that stopped, why search is
// lexical, that search_code comes with the next session).
func Refresh(ctx context.Context, c *codeindex.Index, progress func(Step)) (string, error) {
	existed := c.Exists()
	ix, err := c.Open(ctx, true)
	if err != nil {
		return "", err
	}
	plan, err := c.Plan(ctx, ix)
	if err != nil {
		return "", err
	}
	model := plan.Model.Key()
	steps := 1
	if model != "" {
		steps = 2
	}
	st, err := c.Update(ctx, ix, plan, func(p index.Progress) {
		switch p.Phase {
		case index.PhaseChunk:
			what := "indexing"
			if steps > 1 {
				what = "step 1 of 2: reading files"
			}
			progress(Step{Done: p.Done, Total: p.Changed, Unit: "files", What: what})
		case index.PhaseEmbed:
			progress(Step{Done: p.Embedded, Total: p.ToEmbed, Unit: "chunks", What: "step 2 of 2: embedding with " + model})
		}
	})
	var ee backend.EmbedError
	var notes []string
	switch {
	case ctx.Err() != nil:
		return "", errors.New("stopped; the index is consistent: /index again finishes it")
	case errors.As(err, &ee):
		notes = append(notes, "embedding stopped: "+ee.Error()+"; /index again adds the missing embeddings")
	case err != nil:
		return "", rag.IndexProblem(err)
	}
	status, err := ix.Status(ctx)
	if err != nil {
		return "", rag.IndexProblem(err)
	}
	summary := indexview.Line(st, status)
	if plan.Why != "" {
		notes = append(notes, "no embeddings, search is lexical only: "+plan.Why)
	}
	if !existed {
		// A session's tools are fixed when it opens, for the prompt cache.
		notes = append(notes, "the model gets search_code from the next session on (/new)")
	}
	return strings.Join(append([]string{summary}, notes...), "; "), nil
}
