package runner

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/context/budget"
)

// calibration is what this workspace's store learnt about how the model
// counts tokens compared with tern, so a new session starts calibrated.
func (r *Run) calibration(ctx context.Context) (budget.Calibration, error) {
	factor, samples, ok, err := r.store.Calibration(ctx, r.back.Info.Name)
	if err != nil {
		return budget.Calibration{}, fmt.Errorf("load calibration: %w", err)
	}
	if !ok {
		return budget.Calibration{}, nil
	}
	return budget.Calibration{Factor: factor, Samples: samples}, nil
}
