package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/disclosure"
)

// usageError is a mistake in how tern was called: exit 2, with a pointer
// to --help.
func usageError(format string, args ...any) error {
	return exitCodeError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// checkFlags checks the common flags the user gave before anything else
// runs, so that a wrong value is a usage error (exit 2), told apart from
// a config file's wrong value (exit 1, naming the key).
func (a *app) checkFlags(cmd *cobra.Command) error {
	f := cmd.Flags()
	changed := func(name string) bool {
		fl := f.Lookup(name)
		return fl != nil && fl.Changed
	}
	for _, c := range []struct {
		r config.Range
		v float64
	}{{config.CtxRange, float64(a.ctxTokens)}, {config.VRAMRange, a.vram}, {config.MaxTurnsRange, float64(a.maxTurns)}} {
		if changed(strings.TrimPrefix(c.r.Flag, "--")) {
			if err := c.r.Check(c.v, true); err != nil {
				return exitCodeError{code: exitUsage, err: err}
			}
		}
	}
	for _, t := range []struct {
		name string
		n    int
	}{{"tier", a.tier}, {"max-tier", a.maxTier}} {
		if changed(t.name) && !disclosure.Tier(t.n).Valid() {
			return usageError("--%s must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not %d", t.name, t.n)
		}
	}
	if changed("tier") && changed("max-tier") && a.tier > a.maxTier {
		return usageError("--tier %d is above --max-tier %d", a.tier, a.maxTier)
	}
	if changed("tool-mode") {
		if err := config.CheckToolMode(a.toolMode); err != nil {
			return usageError("--tool-mode %w", err)
		}
	}
	if changed("backend") {
		if err := config.CheckBackend(a.backend); err != nil {
			return usageError("--backend %w%s", err, words.DidYouMean(a.backend, config.Backends))
		}
	}
	return nil
}

// flagSuggestion adds a "did you mean" to cobra's "unknown flag: --modle"
// when cmd has a flag of a near name.
func flagSuggestion(cmd *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok || cmd == nil {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if best := words.Nearest(name, names); best != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, best)
	}
	return err
}
