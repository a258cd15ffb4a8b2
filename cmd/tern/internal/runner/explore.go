package runner

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// newExplorer makes the run's explore subagents: the session's model and
// window by default; the configured subagent_model with a window planned
// for it otherwise (a different model loads on its own, so its window
// need not match). The subagent's tools are given once the session's tool
// set exists (Explorer.UseTools).
func (r *Run) newExplorer(ctx context.Context, temperature *float64, cal budget.Calibration) (*agent.Explorer, error) {
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
func (r *Run) subagentModel(ctx context.Context, name string, cfg *agent.ExploreConfig) error {
	sub, err := r.back.Another(ctx, r.cfg, name, "subagent_model")
	if err != nil {
		return err
	}
	prof := sub.Profile
	system, _, err := prompts.ForModel(r.root, prof, "")
	if err != nil {
		return err
	}
	cfg.Model, cfg.NumCtx = sub.Info.Name, sub.Plan.NumCtx
	cfg.System, cfg.TextTools, cfg.ToolFormat, cfg.OneToolPerReply = system, sub.Proto.Text, prof.ToolFormat, prof.OneToolPerReply
	cfg.Temperature, cfg.Calibration = prof.EffectiveTemperature(r.cfg.Temperature), budget.Calibration{}
	return nil
}
