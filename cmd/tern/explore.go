package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// newExplorer makes the run's explore subagents: the session's model and
// window by default; the configured subagent_model with a window planned
// for it otherwise (a different model loads on its own, so its window
// need not match). The subagent's tools are given once the session's tool
// set exists (Explorer.UseTools).
func (r *run) newExplorer(ctx context.Context, temperature *float64, cal budget.Calibration) (*agent.Explorer, error) {
	prof := r.back.Profile
	system, _, err := prompts.ForModel(r.root, prof, "")
	if err != nil {
		return nil, err
	}
	cfg := agent.ExploreConfig{
		SessionID: r.sess.ID, Model: r.back.Info.Name, NumCtx: r.back.Plan.NumCtx,
		Share: r.cfg.ExploreShare, MaxTurns: r.cfg.ExploreTurns,
		System: system, TextTools: r.back.Proto.Text, ToolFormat: prof.ToolFormat, OneToolPerReply: prof.OneToolPerReply,
		Temperature: temperature, KeepAlive: r.cfg.KeepAlive.Duration, Calibration: cal,
		MainOnly: tools.MainAgentOnly(r.ws),
	}
	if name := r.cfg.SubagentModel; name != "" && name != r.back.Info.Name {
		if err := r.subagentModel(ctx, name, &cfg); err != nil {
			r.notices = append(r.notices, fmt.Sprintf("subagent_model %s cannot be used (%v); explore uses %s", name, err, r.back.Info.Name))
		}
	}
	return agent.NewExplorer(cfg, r.back.Client, nil, r.store, r.counter), nil
}

// subagentModel points cfg at another installed model: its own window,
// profile, tool protocol and system prompt.
func (r *run) subagentModel(ctx context.Context, name string, cfg *agent.ExploreConfig) error {
	if _, ok := models.Installed(name, r.back.Installed); !ok {
		return fmt.Errorf("not installed: run `ollama pull %s`", name)
	}
	oc, ok := r.back.Client.(*ollama.Client)
	if !ok {
		// An OpenAI-compatible server serves the models it was started
		// with, in the window it was started with.
		return fmt.Errorf("a subagent model needs Ollama; %s serves its own model", r.back.Client.Host())
	}
	info, err := oc.Show(ctx, name)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(r.back.Installed, func(m models.ModelInfo) bool { return m.Name == info.Name }); i >= 0 && info.SizeBytes == 0 {
		info.SizeBytes = r.back.Installed[i].SizeBytes
	}
	prof, err := backend.Profile(info, r.cfg)
	if err != nil {
		return err
	}
	system, _, err := prompts.ForModel(r.root, prof, "")
	if err != nil {
		return err
	}
	text := models.ChooseToolProtocol(r.cfg.ToolMode, info, prof).Text
	cfg.Model, cfg.NumCtx = info.Name, ollama.PlanContext(info, r.back.VRAM, r.cfg.Ctx).NumCtx
	cfg.System, cfg.TextTools, cfg.ToolFormat, cfg.OneToolPerReply = system, text, prof.ToolFormat, prof.OneToolPerReply
	cfg.Temperature, cfg.Calibration = prof.EffectiveTemperature(r.cfg.Temperature), budget.Calibration{}
	return nil
}
