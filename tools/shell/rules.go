package shell

import (
	_ "embed"
	"fmt"
	"path"
	"regexp"
	"strings"
)

//go:embed destructive.txt
var destructiveList string

// dangerRule is one line of destructive.txt.
type dangerRule struct {
	// cmd matches the program ("rm", "git push"); nil for free text.
	cmd *regexp.Regexp
	// prog matches the program name alone ("git" for "git push").
	prog *regexp.Regexp
	why  string
	// args is matched against the arguments; nil means always.
	args   *regexp.Regexp
	negate bool
}

func parseDanger(list string) ([]dangerRule, error) {
	var rules []dangerRule
	for i, line := range strings.Split(list, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("destructive.txt line %d: want a program, what it does and a regexp, separated by tabs", i+1)
		}
		d := dangerRule{why: f[1]}
		if f[0] != "-" {
			d.cmd = Wildcard(f[0])
			d.prog = Wildcard(strings.Fields(f[0])[0])
		}
		expr := f[2]
		if strings.HasPrefix(expr, "!") {
			d.negate, expr = true, expr[1:]
		}
		if expr != "" {
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, fmt.Errorf("destructive.txt line %d: %w", i+1, err)
			}
			d.args = re
		}
		if d.cmd == nil && d.args == nil {
			return nil, fmt.Errorf("destructive.txt line %d: a rule for any text needs a regexp", i+1)
		}
		rules = append(rules, d)
	}
	return rules, nil
}

// longOption matches the long options a destructive rule names.
var longOption = regexp.MustCompile(`--[a-z][a-z-]*[a-z]`)

// longsOf lists the long options the rules name.
func longsOf(rules []dangerRule) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range rules {
		if d.args == nil {
			continue
		}
		for _, o := range longOption.FindAllString(d.args.String(), -1) {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	return out
}

// abbreviated reads a long option as the programs that parse theirs with
// getopt_long or git's parse-options do: a unique prefix stands for the
// whole option ("rm --rec" is "rm --recursive"). It returns arg with every
// option of longs it may stand for, or arg itself. Prefixes that are
// ambiguous are read as each option they might be, which can only make a
// command look more dangerous.
func abbreviated(arg string, longs []string) string {
	name, value, eq := strings.Cut(arg, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") {
		return arg
	}
	var all []string
	for _, o := range longs {
		if o == name {
			return arg
		}
		if strings.HasPrefix(o, name) {
			if eq {
				o += "=" + value
			}
			all = append(all, o)
		}
	}
	if len(all) == 0 {
		return arg
	}
	return strings.Join(all, " ")
}

// longMatch reports whether arg is the long option opt, perhaps
// abbreviated or with "=value", and returns the value.
func longMatch(arg, opt string) (value string, eq, ok bool) {
	name, value, eq := strings.Cut(arg, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") || !strings.HasPrefix(opt, name) {
		return "", false, false
	}
	return value, eq, true
}

// dangerous reports whether a program has destructive rules.
func (r *Rules) dangerous(prog string) bool {
	for _, d := range r.danger {
		if d.prog != nil && d.prog.MatchString(prog) {
			return true
		}
	}
	return false
}

// dangers applies the destructive rules to one command.
func (j *judge) dangers(c *cmd) {
	var parts []string
	for _, w := range c.argWords() {
		parts = append(parts, abbreviated(w.text, j.rules.longs))
	}
	args := strings.Join(parts, " ")
	for _, d := range j.rules.danger {
		if d.cmd == nil {
			if d.args.MatchString(c.prog + " " + args) {
				j.destroys(d.why)
			}
			continue
		}
		if !d.cmd.MatchString(c.key) {
			continue
		}
		switch {
		case d.args == nil || d.args.MatchString(args) != d.negate:
			j.destroys(d.why)
		case c.unknownArgs():
			j.destroys("may " + bareVerb(d.why) + " (its arguments are only known when it runs)")
		}
	}
}

// bareVerb turns "deletes files" into "delete files".
func bareVerb(phrase string) string {
	verb, rest, _ := strings.Cut(phrase, " ")
	switch {
	case strings.HasSuffix(verb, "ies"):
		verb = strings.TrimSuffix(verb, "ies") + "y"
	case strings.HasSuffix(verb, "s"):
		verb = strings.TrimSuffix(verb, "s")
	}
	return strings.TrimSpace(verb + " " + rest)
}

// progName is the base name of a static word naming a program.
func progName(w word) string {
	if !w.static {
		return ""
	}
	return path.Base(w.text)
}
