package tools

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed destructive.txt
var destructiveList string

// CommandPolicy is the user's say over run_command, from the configuration:
// commands allowed without asking, and commands never run.
type CommandPolicy struct {
	// Allow lists patterns of commands that run without approval, such as
	// "go test *" or "make". A command is allowed only when every part of it
	// (split at ;, &&, ||, |) matches, and it substitutes no command.
	Allow []string
	// Deny lists patterns of commands that never run, such as "git push*".
	// A command is denied when any part of it matches.
	Deny []string
}

// A pattern is matched against a whole command part, with runs of spaces
// made single; "*" stands for any text, and nothing else is special.

// dangerRule is one destructive pattern and what it does.
type dangerRule struct {
	why string
	re  *regexp.Regexp
}

// commandRules is a CommandPolicy made ready to check commands.
type commandRules struct {
	allow, deny []*regexp.Regexp
	allowSrc    []string
	denySrc     []string
	danger      []dangerRule
}

func newCommandRules(p CommandPolicy) (*commandRules, error) {
	r := &commandRules{allowSrc: p.Allow, denySrc: p.Deny}
	for _, pat := range p.Allow {
		r.allow = append(r.allow, wildcard(pat))
	}
	for _, pat := range p.Deny {
		r.deny = append(r.deny, wildcard(pat))
	}
	for i, line := range strings.Split(destructiveList, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		why, expr, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("destructive.txt line %d: want what it does, a tab, and a regexp", i+1)
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("destructive.txt line %d: %w", i+1, err)
		}
		r.danger = append(r.danger, dangerRule{why, re})
	}
	return r, nil
}

// wildcard compiles a policy pattern: "*" is any text, the rest literal.
func wildcard(pattern string) *regexp.Regexp {
	parts := strings.Split(squeeze(pattern), "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// squeeze trims s and makes each run of whitespace one space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// commandParts splits a command line at the shell's list and pipe
// operators. It does not parse quotes: a part may be cut inside a quoted
// string, which only makes allowing stricter.
var partSplit = regexp.MustCompile(`&&|\|\||[;|&\n]`)

func commandParts(command string) []string {
	var parts []string
	for _, p := range partSplit.Split(strings.ReplaceAll(command, "2>&1", ""), -1) {
		if p = squeeze(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// denied returns the deny pattern command matches, if any.
func (r *commandRules) denied(command string) (string, bool) {
	for _, part := range append(commandParts(command), squeeze(command)) {
		for i, re := range r.deny {
			if re.MatchString(part) {
				return r.denySrc[i], true
			}
		}
	}
	return "", false
}

// allowed reports whether every part of command matches an allow pattern
// and it runs no command of its own making ($(…), backquotes, <(…)) and
// redirects into no file.
func (r *commandRules) allowed(command string) bool {
	if len(r.allow) == 0 || strings.ContainsAny(strings.ReplaceAll(command, "2>&1", ""), "`$<>") {
		return false
	}
	parts := commandParts(command)
	if len(parts) == 0 {
		return false
	}
	for _, part := range parts {
		ok := false
		for _, re := range r.allow {
			if re.MatchString(part) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// destructive says why command could destroy work, or "" when it is not
// known to.
func (r *commandRules) destructive(command string) string {
	for _, d := range r.danger {
		if d.re.MatchString(command) {
			return d.why
		}
	}
	return ""
}
