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
// server cut the prompt; it completes u with what it found and returns
// why it took the prompt as cut, if it did.
func (a *Agent) calibrate(ctx context.Context, u *Usage) (verdict string) {
	v := a.win.Observe(u.Estimate, u.PromptTokens)
	u.Factor, u.Truncated = a.win.Calibration.Value(), v.Truncated
	if a.cfg.Calibrations == nil || u.PromptTokens <= 0 {
		return v.Reason
	}
	if err := a.cfg.Calibrations.SaveCalibration(ctx, a.cfg.Model, a.win.Calibration.Factor, a.win.Calibration.Samples); err != nil {
		a.log.Warn("save calibration", "model", a.cfg.Model, "err", err)
	}
	return v.Reason
}

// fittedStep makes one model request that fits the window. It compacts the
// history first when it has passed the threshold; when the reply shows that
// Ollama cut the prompt anyway (tern's counts were off), it warns, compacts
// with the corrected counts and asks once more.
func (a *Agent) fittedStep(ctx context.Context, t *turn, send func(Event)) (models.Reply, *Usage, error) {
	a.flushNotices(t, send)
	if err := a.autoCompact(ctx, t, send); err != nil {
		return models.Reply{}, nil, err
	}
	reply, usage, err := a.step(ctx, t, send)
	if err != nil || usage == nil || !usage.Truncated {
		return reply, usage, err
	}
	send(Notice{Level: Warn, Text: t.verdict + ": the start of the prompt was probably cut. Compacting and asking again; ignore the reply above."})
	if _, err := a.compact(ctx, t, send, false); err != nil {
		return models.Reply{}, nil, err
	}
	again, usage, err := a.step(ctx, t, send)
	again.Metrics.PromptTokens += reply.Metrics.PromptTokens
	again.Metrics.EvalTokens += reply.Metrics.EvalTokens
	if err == nil && usage.Truncated {
		send(Notice{Level: Warn, Text: t.verdict + ": the prompt was cut again; the model may have missed the start of the conversation."})
	}
	return again, usage, err
}
