package runner

import (
	"context"

	"github.com/ternhq/tern/agent"
)

// recallToolMode starts the run in the text tool protocol when the model
// fell back to it in a recent session and nothing forces native calls.
func (r *Run) recallToolMode(ctx context.Context) {
	if fb, ok := agent.LastFallback(ctx, r.store, r.back.Info.Name); ok {
		r.back.Proto = r.back.Proto.Recall(r.cfg.ToolMode, r.back.Profile, fb)
	}
}
