package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
)

// profileFor returns the model's family profile with the config's
// overrides, checked, so that a typo in [profiles] is an error.
func profileFor(info models.ModelInfo, cfg Config) (models.Profile, error) {
	p := models.ProfileFor(info, cfg.Profiles)
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("config: %w", err)
	}
	if !slices.Contains(prompts.Families(), p.Prompt) {
		return p, fmt.Errorf("config: profile %s: prompt must be one of %s, not %q", p.Name, strings.Join(prompts.Families(), ", "), p.Prompt)
	}
	return p, nil
}

// recentSessions is how many recent sessions are searched for a model's
// fall back to the text tool protocol.
const recentSessions = 20

// lastFallback finds the newest recent session in which model fell back to
// the text tool protocol, as the agent recorded it in the session's meta.
func lastFallback(ctx context.Context, store *session.Store, model string) (models.Fallback, bool) {
	list, err := store.List(ctx, recentSessions)
	if err != nil {
		return models.Fallback{}, false
	}
	for _, s := range list {
		if s.Model != model {
			continue
		}
		if v, set, err := store.Meta(ctx, s.ID, agent.MetaToolMode); err == nil && set && (v == models.ToolModeText || v == models.ToolModeConstrained) {
			why, _, _ := store.Meta(ctx, s.ID, agent.MetaToolModeWhy)
			return models.Fallback{Session: s.ID, Mode: v, Why: why}, true
		}
	}
	return models.Fallback{}, false
}

// recallToolMode starts the run in the text tool protocol when the model
// fell back to it in a recent session and nothing forces native calls.
func (r *run) recallToolMode(ctx context.Context) {
	if fb, ok := lastFallback(ctx, r.store, r.back.info.Name); ok {
		r.back.proto = r.back.proto.Recall(r.cfg.ToolMode, r.back.profile, fb)
	}
}
