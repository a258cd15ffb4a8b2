package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// calibrationSteps are the schema of the per-model token-count
// calibration, kept with Migrate under the component "calibration".
var calibrationSteps = []string{
	`CREATE TABLE model_calibration (
	model   TEXT PRIMARY KEY,
	factor  REAL NOT NULL,
	samples INTEGER NOT NULL DEFAULT 0,
	updated INTEGER NOT NULL
) WITHOUT ROWID;`,
}

// Calibration returns the token-count correction learnt for model (the
// model's prompt count over tern's estimate, and how many replies it was
// learnt from), and whether one was recorded. Every session with the model
// shares it, so a new session starts calibrated.
func (s *Store) Calibration(ctx context.Context, model string) (factor float64, samples int, ok bool, err error) {
	if err := s.Migrate(ctx, "calibration", calibrationSteps); err != nil {
		return 0, 0, false, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT factor, samples FROM model_calibration WHERE model = ?`, model).Scan(&factor, &samples)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("calibration of %s: %w", model, err)
	}
	return factor, samples, true, nil
}

// SaveCalibration records the token-count correction learnt for model,
// replacing the one before.
func (s *Store) SaveCalibration(ctx context.Context, model string, factor float64, samples int) error {
	save := func() error {
		_, err := s.db.ExecContext(ctx, `INSERT INTO model_calibration (model, factor, samples, updated)
			VALUES (?, ?, ?, ?) ON CONFLICT (model) DO UPDATE SET
			factor = excluded.factor, samples = excluded.samples, updated = excluded.updated`,
			model, factor, samples, s.now().UnixMilli())
		return err
	}
	err := save()
	if err != nil {
		// The table may not exist yet: Calibration creates it, but nothing
		// says it was called first.
		if merr := s.Migrate(ctx, "calibration", calibrationSteps); merr == nil {
			err = save()
		}
	}
	if err != nil {
		return fmt.Errorf("save calibration of %s: %w", model, err)
	}
	return nil
}
