package config

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/tools/lsp"
)

// checkConfig checks the values of a config made from the files, and
// returns every problem.
func checkConfig(cfg Config) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := checkToolMode(cfg.ToolMode); err != nil {
		add(fmt.Errorf("tool_mode %w", err))
	}
	if err := checkBackend(cfg.Backend); err != nil {
		add(fmt.Errorf("backend %w", err))
	}
	add(checkTiers(cfg, "tier", "max_tier"))
	errs = append(errs, checkValues(cfg)...)
	add(cfg.Sandbox.check())
	_, err := cfg.MCP.List()
	add(err)
	_, err = lsp.Resolve(cfg.LSP, cfg.LSPEnabled, func(string) (string, error) { return "", errNotLooked })
	add(err)
	if w := cfg.LSPWait.Duration; w < 100*time.Millisecond || w > 2*time.Minute {
		add(fmt.Errorf("lsp_wait must be between 100ms and 2m, not %s", w))
	}
	if !(cfg.ExploreShare >= 0.1 && cfg.ExploreShare <= 1) {
		add(fmt.Errorf("explore_share must be between 0.1 and 1 (a share of the context window), not %v", cfg.ExploreShare))
	}
	if cfg.ExploreTurns < 1 || cfg.ExploreTurns > 50 {
		add(fmt.Errorf("explore_turns must be between 1 and 50, not %d", cfg.ExploreTurns))
	}
	return errs
}

// errNotLooked: the check of the config does not search PATH.
var errNotLooked = errors.New("not looked for")

// checkTiers checks the tier settings, naming them as the user wrote them.
func checkTiers(cfg Config, tierName, maxName string) error {
	for _, v := range []struct {
		name string
		n    int
	}{{tierName, cfg.Tier}, {maxName, cfg.MaxTier}} {
		if !disclosure.Tier(v.n).Valid() {
			return fmt.Errorf("%s must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not %d", v.name, v.n)
		}
	}
	if cfg.Tier > cfg.MaxTier {
		return fmt.Errorf("%s %d is above %s %d", tierName, cfg.Tier, maxName, cfg.MaxTier)
	}
	return nil
}

// The backends: Ollama's native API, or an OpenAI-compatible server
// (llama.cpp's llama-server, LM Studio, vLLM); auto asks the address.
const (
	BackendAuto   = "auto"
	BackendOllama = "ollama"
	BackendOpenAI = "openai"
)

// backends are the values of --backend and backend.
var backends = []string{BackendAuto, BackendOllama, BackendOpenAI}

// checkBackend checks a backend setting; the error reads after its name.
func checkBackend(b string) error {
	switch b {
	case BackendAuto, BackendOllama, BackendOpenAI:
		return nil
	}
	return fmt.Errorf("must be auto, ollama or openai, not %q", b)
}

// toolModes are the values of --tool-mode and tool_mode.
var toolModes = []string{"auto", "native", "text", "constrained"}

// checkToolMode checks a tool-mode setting; the error reads after its
// name, with the mode it was probably meant as.
func checkToolMode(mode string) error {
	if slices.Contains(toolModes, mode) {
		return nil
	}
	return fmt.Errorf("must be %s, not %q%s", words.OrList(toolModes), mode, words.DidYouMean(mode, toolModes))
}

// valueRange is an allowed range of one numeric setting.
type valueRange struct {
	Key      string // as written in the config file
	Flag     string // the flag that sets it, if any
	Min, Max float64
	Why      string
}

// Limits of the numeric settings. The upper bounds are far beyond any real
// machine; they catch typos (an extra digit) and values that would make
// tern plan absurd buffers.
var (
	ctxRange       = valueRange{"ctx", "--ctx", 1024, 1 << 21, "tokens; the context window"}
	vramRange      = valueRange{"vram", "--vram", 0.25, 4096, "GiB of GPU memory"}
	ramRange       = valueRange{"ram", "--ram", 0.25, 65536, "GiB of free system RAM"}
	maxTurnsRange  = valueRange{"max_turns", "--max-turns", 1, 10000, "model requests per prompt"}
	thinkRange     = valueRange{"think_budget", "", 0, 1 << 20, "tokens of thinking per reply; 0 means half the reply reserve"}
	temperatureRng = valueRange{"temperature", "", 0, 5, "the sampling temperature"}
	keepAliveMax   = 365 * 24.0 // hours
)

// check reports v outside r, naming the setting as the user wrote it:
// as its flag when byFlag.
func (r valueRange) check(v float64, byFlag bool) error {
	if v >= r.Min && v <= r.Max { // false for NaN
		return nil
	}
	name := r.Key
	if byFlag && r.Flag != "" {
		name = r.Flag
	}
	return fmt.Errorf("%s must be between %s and %s (%s), not %s", name, num(r.Min), num(r.Max), r.Why, num(v))
}

// num writes v in full, never in exponent form.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// checkValues checks the numeric settings of cfg, named as config keys,
// and returns every value out of range.
func checkValues(cfg Config) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.Ctx != 0 { // 0: planned from the VRAM budget
		add(ctxRange.check(float64(cfg.Ctx), false))
	}
	add(vramRange.check(cfg.VRAMGiB, false))
	if cfg.RAMGiB != 0 { // 0: what the system reports
		add(ramRange.check(cfg.RAMGiB, false))
	}
	add(maxTurnsRange.check(float64(cfg.MaxTurns), false))
	add(thinkRange.check(float64(cfg.ThinkBudget), false))
	if cfg.Temperature != nil {
		add(temperatureRng.check(*cfg.Temperature, false))
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Profiles)) {
		if t := cfg.Profiles[name].Temperature; t != nil {
			if err := temperatureRng.check(*t, false); err != nil {
				add(fmt.Errorf("profiles.%s: %w", name, err))
			}
		}
	}
	if h := cfg.KeepAlive.Hours(); h > keepAliveMax {
		add(fmt.Errorf("keep_alive must be at most a year, not %v", cfg.KeepAlive.Duration))
	}
	for _, v := range []struct {
		key      string
		v, lo, h float64
		why      string
	}{
		{"compact_threshold", cfg.CompactThreshold, 0.2, 1, "a share of the context window"},
		{"rag_share", cfg.RAGShare, 0.05, 0.5, "a share of the context window"},
	} {
		if !(v.v >= v.lo && v.v <= v.h) || math.IsNaN(v.v) {
			add(fmt.Errorf("%s must be between %v and %v (%s), not %v", v.key, v.lo, v.h, v.why, v.v))
		}
	}
	return errs
}
