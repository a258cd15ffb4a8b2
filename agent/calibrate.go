package agent

import (
	"context"

	"github.com/ternhq/tern/models"
)

// CalibrationStore keeps a model's token-count correction between sessions;
// *session.Store satisfies it.
type CalibrationStore interface {
	SaveCalibration(ctx context.Context, model string, factor float64, samples int) error
}

// calibrate learns from a reply's prompt count and checks whether the
// server cut the prompt; it completes u with what it found.
func (a *Agent) calibrate(ctx context.Context, u *Usage) {
	v := a.win.Observe(u.Estimate, u.PromptTokens)
	u.Factor, u.Truncated, a.verdict = a.win.Calibration.Value(), v.Truncated, v.Reason
	if a.cfg.Calibrations == nil || u.PromptTokens <= 0 {
		return
	}
	if err := a.cfg.Calibrations.SaveCalibration(ctx, a.cfg.Model, a.win.Calibration.Factor, a.win.Calibration.Samples); err != nil {
		a.log.Warn("save calibration", "model", a.cfg.Model, "err", err)
	}
}

// fittedStep makes one model request that fits the window. It compacts the
// history first when it has passed the threshold; when the reply shows that
// Ollama cut the prompt anyway (tern's counts were off), it warns, compacts
// with the corrected counts and asks once more.
func (a *Agent) fittedStep(ctx context.Context, send func(Event)) (models.Reply, *Usage, error) {
	a.flushNotices(send)
	if err := a.autoCompact(ctx, send); err != nil {
		return models.Reply{}, nil, err
	}
	reply, usage, err := a.step(ctx, send)
	if err != nil || usage == nil || !usage.Truncated {
		return reply, usage, err
	}
	send(Notice{Level: Warn, Text: a.verdict + ": the start of the prompt was probably cut. Compacting and asking again; ignore the reply above."})
	if _, err := a.compact(ctx, send, false); err != nil {
		return models.Reply{}, nil, err
	}
	again, usage, err := a.step(ctx, send)
	again.Metrics.PromptTokens += reply.Metrics.PromptTokens
	again.Metrics.EvalTokens += reply.Metrics.EvalTokens
	if err == nil && usage.Truncated {
		send(Notice{Level: Warn, Text: a.verdict + ": the prompt was cut again; the model may have missed the start of the conversation."})
	}
	return again, usage, err
}
