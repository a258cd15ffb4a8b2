package tools

import (
	"strings"

	"github.com/ternhq/tern/tools/sandbox"
	"github.com/ternhq/tern/tools/shell"
)

// CommandPolicy is the user's say over run_command, from the configuration:
// commands allowed without asking, and commands never run.
type CommandPolicy struct {
	// Allow lists patterns of commands that run without approval, such as
	// "go test *" or "make". A command line is allowed only when every
	// simple command in it matches, and it is neither destructive nor
	// opaque (see package shell).
	Allow []string
	// Deny lists patterns of commands that never run, such as "git push*".
	// A command line is denied when any simple command in it matches.
	Deny []string
	// Reaper is the path of tern's binary, which can run each command as a
	// child subreaper (see RunReaper) so that nothing it starts outlives
	// it or tern. Empty means a process group only, which setsid escapes.
	Reaper string
	// Terminal, when set, runs the commands where the user watches them
	// (the editor's terminal, tern acp) instead of in tern's own process.
	Terminal Terminal
	// Sandbox confines every command and what it starts; nil, or one
	// that is not Active, runs them unconfined.
	Sandbox *sandbox.Sandbox
	// RequireSandbox refuses commands when Sandbox is not Active.
	RequireSandbox bool
}

// commandRules is a CommandPolicy made ready to check commands, for one
// workspace.
type commandRules struct {
	rules *shell.Rules
}

func newCommandRules(p CommandPolicy, root string) (*commandRules, error) {
	r, err := shell.NewRules(shell.Policy{Allow: p.Allow, Deny: p.Deny, Root: root})
	if err != nil {
		return nil, err
	}
	return &commandRules{rules: r}, nil
}

// denied returns the deny pattern command matches, if any.
func (r *commandRules) denied(command string) (string, bool) {
	v := r.rules.Judge(command)
	return v.Denied, v.Denied != ""
}

// allowed reports whether the configuration lets command run without
// asking.
func (r *commandRules) allowed(command string) bool {
	v := r.rules.Judge(command)
	return v.Allowed && v.Destructive == "" && v.Opaque == ""
}

// destructive says why command must be approved every time: it could
// destroy work, or tern cannot tell what it runs. It is "" otherwise.
func (r *commandRules) destructive(command string) string {
	v := r.rules.Judge(command)
	switch {
	case v.Destructive != "":
		return v.Destructive
	case v.Opaque != "":
		return v.Opaque + ", so tern cannot tell what it does"
	}
	return ""
}

// squeeze trims s and makes each run of whitespace one space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
