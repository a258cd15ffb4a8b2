package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/words"
)

// usageError is a mistake in how tern was called: exit 2, with a pointer
// to --help.
func usageError(format string, args ...any) error {
	return exitCodeError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// checkFlags checks the common flags the user gave before anything else
// runs, so that a wrong value is a usage error (exit 2), told apart from
// a config file's wrong value (exit 1, naming the key).
func (a *app) checkFlags(*cobra.Command) error {
	if err := a.flags().Check(); err != nil {
		return exitCodeError{code: exitUsage, err: err}
	}
	return nil
}

// flags are the common flags the user gave, as the config takes them.
func (a *app) flags() config.Flags {
	f := a.cmd.PersistentFlags()
	flags := config.Flags{
		Model: given(f, "model", &a.model), Host: given(f, "host", &a.host),
		Backend: given(f, "backend", &a.backend), ToolMode: given(f, "tool-mode", &a.toolMode),
		Ctx: given(f, "ctx", &a.ctxTokens), VRAMGiB: given(f, "vram", &a.vram), RAMGiB: given(f, "ram", &a.ram), MaxTurns: given(f, "max-turns", &a.maxTurns),
		Tier: given(f, "tier", &a.tier), MaxTier: given(f, "max-tier", &a.maxTier),
	}
	if f.Changed("allow-read") {
		flags.AllowRead = a.allowRead
	}
	return flags
}

// given is v when the flag name was given, else nil.
func given[T any](f *pflag.FlagSet, name string, v *T) *T {
	if f.Changed(name) {
		return v
	}
	return nil
}

// flagSuggestion adds a "did you mean" to cobra's "unknown flag: --modle"
// when cmd has a flag of a near name.
//
// It also words pflag's "invalid argument" errors for people: `--vram
// takes a number, not "abc"`, not `invalid argument "abc" for "--vram"
// flag: strconv.ParseFloat: parsing "abc": invalid syntax`.
func flagSuggestion(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := invalidFlag.FindStringSubmatch(msg); m != nil {
		flag, _, _ := strings.Cut(m[2], ", ") // "-k, --k": -k
		for _, t := range flagTypes {
			if strings.HasPrefix(m[3], t.prefix) {
				return exitCodeError{exitUsage, fmt.Errorf("%s takes %s, not %q", flag, t.takes, m[1])}
			}
		}
		return err
	}
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

// invalidFlag is pflag's error for a flag value of the wrong type: the
// value, the flag ("--vram", "-k, --k") and why.
var invalidFlag = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)

// flagTypes say what a flag of each type takes, by pflag's reason.
var flagTypes = []struct{ prefix, takes string }{
	{"strconv.ParseFloat", "a number"},
	{"strconv.ParseInt", "a whole number"},
	{"strconv.ParseUint", "a whole number"},
	{"strconv.ParseBool", "true or false"},
	{"time: ", "a duration such as 90s or 10m"},
}
