package config

import (
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/disclosure"
)

// Flags are the settings given on the command line, which beat the files
// and the environment. A nil field, or an empty AllowRead, was not given.
type Flags struct {
	Model, Host, Backend, ToolMode *string
	Ctx, MaxTurns, Tier, MaxTier   *int
	VRAMGiB, RAMGiB                *float64
	AllowRead                      []string
}

// Check checks the flags' own values before anything runs, naming them as
// flags, so that the caller can tell a wrong flag (a usage error) from a
// config file's wrong value.
func (f Flags) Check() error {
	for _, c := range []struct {
		r valueRange
		v *float64
	}{{ctxRange, intValue(f.Ctx)}, {vramRange, f.VRAMGiB}, {ramRange, f.RAMGiB}, {maxTurnsRange, intValue(f.MaxTurns)}} {
		if c.v != nil {
			if err := c.r.check(*c.v, true); err != nil {
				return err
			}
		}
	}
	for _, t := range []struct {
		name string
		n    *int
	}{{"tier", f.Tier}, {"max-tier", f.MaxTier}} {
		if t.n != nil && !disclosure.Tier(*t.n).Valid() {
			return fmt.Errorf("--%s must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not %d", t.name, *t.n)
		}
	}
	if f.Tier != nil && f.MaxTier != nil && *f.Tier > *f.MaxTier {
		return fmt.Errorf("--tier %d is above --max-tier %d", *f.Tier, *f.MaxTier)
	}
	if f.ToolMode != nil {
		if err := checkToolMode(*f.ToolMode); err != nil {
			return fmt.Errorf("--tool-mode %w", err)
		}
	}
	if f.Backend != nil {
		if err := checkBackend(*f.Backend); err != nil {
			return fmt.Errorf("--backend %w%s", err, words.DidYouMean(*f.Backend, backends))
		}
	}
	return nil
}

// intValue is *n as a float64, nil when n is.
func intValue(n *int) *float64 {
	if n == nil {
		return nil
	}
	v := float64(*n)
	return &v
}

// WithFlags returns cfg, made from the files and the environment, with f
// over it. The files were checked as they were read and the flags by
// Check, so what is left to check is what only their combination can
// break: a tier above the tier cap. Asking for a tier without a cap
// raises a configured cap to it.
func (cfg Config) WithFlags(f Flags) (Config, error) {
	given(&cfg.Model, f.Model)
	if f.Host != nil {
		cfg.SetHost(*f.Host)
	}
	given(&cfg.Backend, f.Backend)
	given(&cfg.Ctx, f.Ctx)
	given(&cfg.VRAMGiB, f.VRAMGiB)
	given(&cfg.RAMGiB, f.RAMGiB)
	given(&cfg.MaxTurns, f.MaxTurns)
	cfg.AllowRead = append(cfg.AllowRead, f.AllowRead...)
	given(&cfg.ToolMode, f.ToolMode)
	given(&cfg.Tier, f.Tier)
	given(&cfg.MaxTier, f.MaxTier)
	if f.Tier != nil && f.MaxTier == nil && cfg.Tier > cfg.MaxTier {
		cfg.MaxTier = cfg.Tier // asking for a tier raises a configured cap
	}
	if err := checkTiers(cfg, "--tier", "--max-tier"); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// given sets *dst to *v when the flag was given.
func given[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}
