// Package shell judges a shell command line before tern runs it. It parses
// the line with a real shell parser (mvdan.cc/sh/v3/syntax), finds every
// simple command it would run — in pipelines, lists, subshells, functions,
// command and process substitutions, `bash -c` strings, and behind
// wrappers such as env, xargs, timeout, sudo or find -exec — and judges
// each against the user's allow and deny patterns and the built-in list of
// destructive commands.
//
// What cannot be known from the text alone (a command name held in a
// variable, command substitution, eval, code given inline to an
// interpreter, a script run from the workspace) makes the line opaque: it
// needs the user's approval every time, and no allow pattern covers it.
//
// The package imports only the shell parser and the standard library.
package shell

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Policy is the user's say over commands, from the configuration.
type Policy struct {
	// Allow lists patterns of commands that run without approval, such as
	// "go test *". A pattern matches one simple command as written, quotes
	// removed; "*" stands for any text.
	Allow []string
	// Deny lists patterns of commands that never run, such as "git push*".
	Deny []string
	// Root is the workspace root; a program run from inside it is one the
	// model may have written.
	Root string
}

// Verdict is what a command line would do, as far as its text tells.
type Verdict struct {
	// Denied is the deny pattern that matched, if any.
	Denied string
	// Destructive says why the line could destroy work ("deletes files
	// recursively"), or is empty.
	Destructive string
	// Opaque says why tern cannot tell what the line runs ("runs inline
	// python code (-c)"), or is empty. Such a line needs approval every
	// time.
	Opaque string
	// Allowed is set when every command of the line matches an allow
	// pattern and the line is neither opaque nor writes files through
	// redirections.
	Allowed bool
	// Commands are the simple commands found, rendered one per entry.
	Commands []string
	// Prefix is the start of the line a user may allow for a session
	// ("go test" for `go test ./...`): its program and, when the next word
	// names a subcommand, that word. It is set only for a line of one
	// command that is neither denied, destructive nor opaque, writes no
	// file through a redirection, and runs a program without any
	// destructive use (so never for rm or git).
	Prefix string
}

// Rules is a Policy made ready to judge command lines.
type Rules struct {
	allow, deny       []*regexp.Regexp
	allowSrc, denySrc []string
	danger            []dangerRule
	root              string
	// longs are the long options the destructive rules name
	// (--recursive, --force), which programs also take abbreviated.
	longs []string
}

// NewRules compiles a policy.
func NewRules(p Policy) (*Rules, error) {
	r := &Rules{allowSrc: p.Allow, denySrc: p.Deny, root: strings.TrimRight(p.Root, "/")}
	for _, pat := range p.Allow {
		r.allow = append(r.allow, Wildcard(pat))
	}
	for _, pat := range p.Deny {
		r.deny = append(r.deny, Wildcard(pat))
	}
	d, err := builtinDanger()
	if err != nil {
		return nil, err
	}
	r.danger = d
	r.longs = longsOf(d)
	return r, nil
}

// builtinDanger is destructive.txt's rules, parsed once per process: the
// tool set is built more than once at start-up, and each parse compiles
// some hundred regexps. Rules never change the slice.
var builtinDanger = sync.OnceValues(func() ([]dangerRule, error) { return parseDanger(destructiveList) })

// Wildcard compiles a policy pattern: "*" is any text, runs of spaces are
// one space, the rest is literal.
func Wildcard(pattern string) *regexp.Regexp {
	parts := strings.Split(squeeze(pattern), "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("(?s)^" + strings.Join(parts, ".*") + "$")
}

// squeeze trims s and makes each run of whitespace one space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// MaxLength is the longest command line judged; a longer one is opaque.
const MaxLength = 64 << 10

// maxDepth bounds how deeply `bash -c` strings inside `bash -c` strings
// are parsed.
const maxDepth = 6

// Judge reads a command line and says what it would do.
func (r *Rules) Judge(line string) Verdict {
	j := &judge{rules: r, allowed: true}
	if len(line) > MaxLength {
		j.opaque(fmt.Sprintf("is longer than %d KiB", MaxLength>>10))
	} else {
		if pat, ok := r.denies(squeeze(line)); ok {
			j.deny(pat)
		}
		j.script(line, 0)
	}
	v := Verdict{Denied: j.denied, Destructive: j.danger, Opaque: j.why, Commands: j.seen}
	v.Allowed = j.allowed && j.why == "" && len(j.seen) > 0 && len(r.allow) > 0
	if len(j.seen) == 1 && j.denied == "" && j.danger == "" && j.why == "" && !j.writes {
		v.Prefix = r.prefix(j.seen[0])
	}
	return v
}

// subcommand matches a word that names a subcommand (test, run-script),
// not an argument (./..., -v, main.go).
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// prefix is the start of a command as Verdict.Prefix has it, "" for a
// program with destructive uses.
func (r *Rules) prefix(written string) string {
	words := strings.Fields(written)
	for len(words) > 0 && isAssign(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 || r.dangerous(path.Base(words[0])) {
		return ""
	}
	if len(words) > 1 && subcommand.MatchString(words[1]) {
		return words[0] + " " + words[1]
	}
	return words[0]
}

// Covers reports whether prefix, a Verdict.Prefix the user allowed,
// covers the line whose Verdict.Prefix is next: the same words, or more.
func Covers(prefix, next string) bool {
	return prefix != "" && (next == prefix || strings.HasPrefix(next, prefix+" "))
}

// denies reports the deny pattern one rendering of a command matches.
func (r *Rules) denies(text string) (string, bool) {
	for i, re := range r.deny {
		if re.MatchString(text) {
			return r.denySrc[i], true
		}
	}
	return "", false
}

// denyNames reports whether a deny pattern starts with the program prog
// ("git" for "git push*").
func (r *Rules) denyNames(prog string) bool {
	for _, pat := range r.denySrc {
		if f := strings.Fields(pat); len(f) > 0 && f[0] == prog {
			return true
		}
	}
	return false
}

// allows reports whether a rendering of a command matches an allow pattern.
func (r *Rules) allows(text string) bool {
	for _, re := range r.allow {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// judge collects the findings about one command line.
type judge struct {
	rules   *Rules
	denied  string
	danger  string
	why     string
	allowed bool
	// writes is set when a redirection writes a file.
	writes bool
	seen   []string
	// funcs are the functions the line defines, by name.
	funcs map[string]bool
	// tail is set while the next command judged is the tail of another's
	// arguments (see suffixes).
	tail bool
}

func (j *judge) deny(pat string) {
	if j.denied == "" {
		j.denied = pat
	}
}

func (j *judge) destroys(why string) {
	if j.danger == "" {
		j.danger = why
	}
}

func (j *judge) opaque(why string) {
	j.allowed = false
	if j.why == "" {
		j.why = why
	}
}
