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
	"github.com/ternhq/tern/statedir"
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

// toolMode decides the tool protocol: --tool-mode (or tool_mode) when it
// is native or text; else the profile's choice; else native when the model
// has the tools capability. why is the notice to show for text mode.
func toolMode(cfg Config, info models.ModelInfo, p models.Profile) (text bool, why string) {
	mode := effectiveToolMode(cfg, p)
	src := "--tool-mode " + mode
	if cfg.ToolMode == "auto" {
		src = "the " + p.Name + " profile"
	}
	switch mode {
	case "text":
		return true, fmt.Sprintf("using the text tool protocol (%s)", src)
	case "constrained":
		return true, fmt.Sprintf("using the text tool protocol with replies held to a JSON schema (%s)", src)
	case "native":
		return false, ""
	}
	if !info.Has(models.CapTools) {
		return true, fmt.Sprintf("%s has no native tool support; using the text tool protocol", info.Name)
	}
	return false, ""
}

// effectiveToolMode is --tool-mode (or tool_mode), else the profile's
// choice when it makes one: "auto", "native", "text" or "constrained".
func effectiveToolMode(cfg Config, p models.Profile) string {
	if cfg.ToolMode == "auto" && p.ToolMode != "" && p.ToolMode != "auto" {
		return p.ToolMode
	}
	return cfg.ToolMode
}

// recentSessions is how many recent sessions are searched for a model's
// fall back to the text tool protocol.
const recentSessions = 20

// lastFallback finds the newest recent session in which model fell back to
// the text tool protocol, and why.
func lastFallback(ctx context.Context, store *session.Store, model string) (id, why, mode string, ok bool) {
	list, err := store.List(ctx, recentSessions)
	if err != nil {
		return "", "", "", false
	}
	for _, s := range list {
		if s.Model != model {
			continue
		}
		if v, set, err := store.Meta(ctx, s.ID, agent.MetaToolMode); err == nil && set && (v == "text" || v == "constrained") {
			why, _, _ := store.Meta(ctx, s.ID, agent.MetaToolModeWhy)
			return s.ID, why, v, true
		}
	}
	return "", "", "", false
}

// recallToolMode starts the run in the text tool protocol when the model
// fell back to it in a recent session and nothing forces native calls.
func (r *run) recallToolMode(ctx context.Context) {
	if r.back.textTools || r.cfg.ToolMode != "auto" || (r.back.profile.ToolMode != "" && r.back.profile.ToolMode != "auto") {
		return
	}
	id, why, mode, ok := lastFallback(ctx, r.store, r.back.info.Name)
	if !ok {
		return
	}
	r.back.textTools = true
	r.back.constrained = mode == "constrained"
	r.back.textWhy = fmt.Sprintf("using the text tool protocol: in session %s, %s (force native calls with --tool-mode native)", id, why)
}

// doctorTools reports the tool protocol a run would use, and why.
func (a *app) doctorTools(ctx context.Context, r *report, cfg Config, info models.ModelInfo, prof models.Profile) {
	text, why := toolMode(cfg, info, prof)
	if !text && cfg.ToolMode == "auto" {
		if root, err := a.workspaceRoot(); err == nil {
			if store, err := openExisting(ctx, root); err == nil && store != nil {
				if id, reason, _, ok := lastFallback(ctx, store, info.Name); ok {
					text, why = true, fmt.Sprintf("in session %s, %s", id, reason)
				}
				store.Close()
			}
		}
	}
	if !text {
		r.ok("Tools", "native tool calls (repaired when written as text; a retry in text on Ollama's tool-parse errors)")
		return
	}
	r.note("Tools", "text tool protocol (tools described in the prompt, calls parsed from text): %s", why)
	if !info.Has(models.CapTools) {
		r.detail("a model with native tool support works better, e.g. `ollama pull qwen3:8b`")
	} else {
		r.detail("force native calls with --tool-mode native")
	}
}

// openExisting opens the workspace's session store if it exists; it never
// creates one (tern doctor must not leave files behind).
func openExisting(ctx context.Context, root string) (*session.Store, error) {
	path, exists, err := statedir.Existing(root, "tern.db")
	if err != nil || !exists {
		return nil, err
	}
	return session.Open(ctx, path)
}
