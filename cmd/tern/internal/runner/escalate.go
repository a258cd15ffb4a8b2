package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
)

// escalation is the agent's escalate_model, wired as the session's model
// is (its window, profile, prompt, tool protocol and calibration); nil
// when none is configured, or with a notice when it cannot be used: a
// stuck turn then stops as it would without.
func (r *Run) escalation(ctx context.Context) *agent.Escalation {
	name := r.cfg.EscalateModel
	if name == "" || name == r.back.Info.Name && r.cfg.EscalateHost == "" {
		return nil
	}
	e, err := r.connectEscalation(ctx)
	if err != nil {
		r.escalationErr = err
		r.notices = append(r.notices, fmt.Sprintf("escalate_model %s cannot be used (%v); a stuck turn stops as it would without", name, err))
		return nil
	}
	return e
}

func (r *Run) connectEscalation(ctx context.Context) (*agent.Escalation, error) {
	esc, err := r.back.Escalation(ctx, r.cfg, r.vram)
	if err != nil {
		return nil, err
	}
	prof := esc.Profile
	think := r.cfg.Think
	if !esc.Info.Has(models.CapThinking) {
		think = ""
	}
	system, _, err := prompts.ForModel(r.root, prof, think)
	if err != nil {
		return nil, err
	}
	var cal budget.Calibration
	if factor, samples, ok, err := r.store.Calibration(ctx, esc.Info.Name); err != nil {
		return nil, fmt.Errorf("load calibration: %w", err)
	} else if ok {
		cal = budget.Calibration{Factor: factor, Samples: samples}
	}
	where := ""
	if r.cfg.EscalateHost != "" {
		where = esc.Client.Host()
	}
	return &agent.Escalation{
		Client: esc.Client, Name: esc.Info.Name, Where: where,
		NumCtx: esc.Plan.NumCtx, System: system,
		TextTools: esc.Proto.Text, Constrained: esc.Proto.Constrained, OneToolPerReply: prof.OneToolPerReply,
		ToolFormat: prof.ToolFormat, Think: think, Temperature: prof.EffectiveTemperature(r.cfg.Temperature),
		Calibration: cal,
	}, nil
}

// noEscalation is the error of --escalate without a model to escalate to.
func (r *Run) noEscalation() error {
	if r.escalationErr != nil {
		return fmt.Errorf("--escalate: escalate_model %s cannot be used: %w", r.cfg.EscalateModel, r.escalationErr)
	}
	if r.cfg.EscalateModel == r.back.Info.Name {
		return fmt.Errorf("--escalate: escalate_model is %s, the session's own model", r.back.Info.Name)
	}
	return errors.New("--escalate needs escalate_model in the config: a larger model the turn runs on (an installed one, or one on escalate_host)")
}

// Escalation names the model a turn escalates to, "" when none.
func (r *Run) Escalation() string { return r.agent.Escalation() }
