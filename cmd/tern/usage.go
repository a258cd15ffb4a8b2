package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
		r valueRange
		v float64
	}{{ctxRange, float64(a.ctxTokens)}, {vramRange, a.vram}, {maxTurnsRange, float64(a.maxTurns)}} {
		if changed(strings.TrimPrefix(c.r.flag, "--")) {
			if err := c.r.check(c.v, true); err != nil {
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
	if changed("tool-mode") && !isOneOf(a.toolMode, toolModes) {
		return usageError("--tool-mode must be %s, not %q%s", orList(toolModes), a.toolMode, suggest(a.toolMode, toolModes))
	}
	if changed("backend") {
		if err := checkBackend(a.backend); err != nil {
			return usageError("--backend %w%s", err, suggest(a.backend, []string{backendAuto, backendOllama, backendOpenAI}))
		}
	}
	return nil
}

// toolModes are the values of --tool-mode and tool_mode.
var toolModes = []string{"auto", "native", "text", "constrained"}

func isOneOf(s string, list []string) bool {
	for _, v := range list {
		if s == v {
			return true
		}
	}
	return false
}

// orList writes "a, b, c or d".
func orList(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

// suggest returns `; did you mean "x"?` for the nearest of known to s, or
// "" when none is near: within a third of the word's length in edits, or
// one that s is a prefix of.
func suggest(s string, known []string) string {
	if best := nearest(s, known); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// nearest is the word of known closest to s, or "" when none is near.
func nearest(s string, known []string) string {
	if s == "" {
		return ""
	}
	best, bestD := "", 0
	limit := max(1, len([]rune(s))/3)
	for _, k := range known {
		d := editDistance(strings.ToLower(s), strings.ToLower(k))
		if len(s) >= 3 && strings.HasPrefix(k, s) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, with a swap
// of two neighbours counted as one edit.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
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
	if best := nearest(name, names); best != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, best)
	}
	return err
}

// unknownKeysError names the keys a config file holds that tern does not
// know, each with the known key it was probably meant as, if any.
type unknownKeysError struct {
	path string
	keys []string // `"modle" (did you mean "model"?)`
}

func (e unknownKeysError) Error() string {
	if len(e.keys) == 1 {
		return fmt.Sprintf("config %s: unknown key %s", e.path, e.keys[0])
	}
	return fmt.Sprintf("config %s: unknown keys %s and %s", e.path, strings.Join(e.keys[:len(e.keys)-1], ", "), e.keys[len(e.keys)-1])
}

// unknownKeys words the keys of path that tern does not know: "modle"
// (did you mean "model"?); a table's keys are not listed when the table
// itself is unknown.
func unknownKeys(path string, keys []toml.Key) unknownKeysError {
	e := unknownKeysError{path: path}
	seen := map[string]bool{}
	for _, k := range keys {
		name := k.String()
		if seen[name] || hasUnknownParent(k, seen) {
			continue
		}
		seen[name] = true
		part := fmt.Sprintf("%q", name)
		if known := knownKeysAt(reflect.TypeFor[Config](), k[:len(k)-1]); len(known) > 0 {
			if best := nearest(k[len(k)-1], known); best != "" {
				part += fmt.Sprintf(" (did you mean %q?)", strings.Join(append(slices.Clone(k[:len(k)-1]), best), "."))
			}
		}
		e.keys = append(e.keys, part)
	}
	return e
}

// hasUnknownParent is true when a table above k was already reported:
// [strem] reports "strem", not each key inside it.
func hasUnknownParent(k toml.Key, seen map[string]bool) bool {
	for i := 1; i < len(k); i++ {
		if seen[k[:i].String()] {
			return true
		}
	}
	return false
}

// knownKeysAt lists the keys a config table at path may hold, following
// the toml tags of t; a map's key (a profile's or server's name) matches
// anything. nil when path leads nowhere tern knows.
func knownKeysAt(t reflect.Type, path []string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(path) == 0 {
		if t.Kind() != reflect.Struct {
			return nil
		}
		var keys []string
		for i := range t.NumField() {
			if k := tomlKey(t.Field(i)); k != "" && t.Field(i).IsExported() {
				keys = append(keys, k)
			}
		}
		return keys
	}
	switch t.Kind() {
	case reflect.Map:
		return knownKeysAt(t.Elem(), path[1:])
	case reflect.Struct:
		for i := range t.NumField() {
			if tomlKey(t.Field(i)) == path[0] {
				return knownKeysAt(t.Field(i).Type, path[1:])
			}
		}
	}
	return nil
}
