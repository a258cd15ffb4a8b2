package main

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
)

// profileFor returns the model's family profile with the config's
// overrides, checked, so that a typo in [profiles] is an error.
func profileFor(info models.ModelInfo, cfg config.Config) (models.Profile, error) {
	p := models.ProfileFor(info, cfg.Profiles)
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("config: %w", err)
	}
	if err := prompts.CheckProfile(p); err != nil {
		return p, fmt.Errorf("config: %w", err)
	}
	return p, nil
}

// recallToolMode starts the run in the text tool protocol when the model
// fell back to it in a recent session and nothing forces native calls.
func (r *run) recallToolMode(ctx context.Context) {
	if fb, ok := agent.LastFallback(ctx, r.store, r.back.info.Name); ok {
		r.back.proto = r.back.proto.Recall(r.cfg.ToolMode, r.back.profile, fb)
	}
}
