package shell

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The programs that take code in their arguments or input (interpreters,
// awk, sed, find's actions, watch, flock), and how their code is judged.

// interpreter judges python, node, perl and the like: inline code, a
// script, or code read from the input all need approval; a module run
// (python -m pytest) or a version query do not.
func (j *judge) interpreter(c *cmd) {
	name := interpreterName(c.prog)
	in := interpreters[name]
	args := c.argWords()
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case !a.static:
			j.opaque("runs " + c.prog + " with arguments only known when they run")
			return
		case slices.Contains(in.version, t):
			return
		case t == "--":
			if i+1 < len(args) {
				j.opaque("runs the script " + args[i+1].text + ", which the model may have written")
				return
			}
		case strings.HasPrefix(t, "--") || name == "pwsh" && strings.HasPrefix(t, "-"):
			n, _, _ := strings.Cut(t, "=")
			if slices.ContainsFunc(in.long, func(l string) bool { return strings.EqualFold(l, n) }) {
				j.opaque("runs inline " + c.prog + " code (" + n + ")")
				return
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for k := 1; k < len(t); k++ {
				ch := t[k]
				switch {
				case strings.IndexByte(in.inline, ch) >= 0:
					j.opaque("runs inline " + c.prog + " code (-" + string(ch) + ")")
					return
				case in.module != "" && ch == in.module[0]:
					module := t[k+1:]
					if module == "" && i+1 < len(args) {
						module = args[i+1].text
					}
					j.module(c.prog, module)
					return
				case strings.IndexByte(in.attached, ch) >= 0:
					k = len(t)
				case strings.IndexByte(in.values, ch) >= 0:
					if k == len(t)-1 {
						i++
					}
					k = len(t)
				}
			}
		default:
			switch kind, ok := in.subs[t]; {
			case ok && kind == "code":
				j.opaque("runs inline " + c.prog + " code (" + t + ")")
			case ok && kind == "script":
				j.opaque("runs a " + c.prog + " script, which the model may have written")
			case ok:
			default:
				j.opaque("runs the script " + t + ", which the model may have written")
			}
			return
		}
	}
	j.opaque("reads " + c.prog + " code from its input")
}

// awk judges an awk program: system(), pipes and getline from commands
// run programs; a program file cannot be read.
func (j *judge) awk(c *cmd) {
	args := c.argWords()
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case !a.static && i == 0:
			j.opaque("runs an awk program only known when it runs")
			return
		case t == "-f" || t == "-i" || t == "-l" || t == "-E" || isLong(t, "--file") || isLong(t, "--include") || isLong(t, "--load") || isLong(t, "--exec"):
			j.opaque("runs an awk program from a file")
			return
		case t == "-e" || isLong(t, "--source"):
			if v, eq, _ := longMatch(t, "--source"); eq {
				j.awkProgram(lit(v))
			} else if i+1 < len(args) {
				j.awkProgram(args[i+1])
				i++
			}
		case t == "-F" || t == "-v" || t == "--field-separator" || t == "--assign":
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			j.awkProgram(a)
			return
		}
	}
}

var awkRuns = regexp.MustCompile(`system|[^|]\|[^|]|^\||\|$|\|&|@load`)

func (j *judge) awkProgram(w word) {
	if !w.static {
		j.opaque("runs an awk program only known when it runs")
		return
	}
	if awkRuns.MatchString(w.text) {
		j.opaque("runs an awk program that may start commands (system or |)")
	}
}

// sedRuns matches GNU sed's e command and s///e flag.
var sedRuns = regexp.MustCompile(`(^|[;\n{}])\s*([0-9$]+(,[0-9$]+)?|/[^/]*/)?\s*!?\s*e(\s|;|$)|/[gpiImM0-9]*e[gpiImM0-9]*\s*($|;|\}|\n)`)

// sed judges sed scripts: GNU sed's e command runs programs.
func (j *judge) sed(c *cmd) {
	args := c.argWords()
	script := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case t == "-f" || isLong(t, "--file"):
			j.opaque("runs a sed script from a file, which may start commands")
			return
		case t == "-e" || isLong(t, "--expression"):
			if v, eq, _ := longMatch(t, "--expression"); eq {
				j.sedScript(lit(v))
			} else if i+1 < len(args) {
				j.sedScript(args[i+1])
				i++
			}
			script = true
		case strings.HasPrefix(t, "-e") && !strings.HasPrefix(t, "--"):
			j.sedScript(lit(t[2:]))
			script = true
		case strings.HasPrefix(t, "-") && len(t) > 1 && a.static:
			if t == "-l" || t == "--line-length" {
				i++
			}
		case !script:
			j.sedScript(a)
			script = true
		}
	}
}

func (j *judge) sedScript(w word) {
	if !w.static {
		j.opaque("runs a sed script only known when it runs")
		return
	}
	if sedRuns.MatchString(w.text) {
		j.opaque("runs a sed script that may start commands (the e command)")
	}
}

// find judges the commands of -exec, -execdir, -ok and -okdir; -fprint
// and the like write files, which keeps it from being allowed without
// asking.
func (j *judge) find(c *cmd, depth int) {
	c.knownWrapper = true
	args := c.argWords()
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			j.allowed = false
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(args) && !(args[end].static && (args[end].text == ";" || args[end].text == "+")) {
				end++
			}
			if end > i+1 && !j.command(args[i+1:end], nil, depth) {
				j.allowed = false
			}
			i = end
		}
	}
}

// flagged makes a command opaque when it has one of the options.
func (j *judge) flagged(c *cmd, why string, opts ...string) {
	for _, a := range c.argWords() {
		for _, o := range opts {
			if a.text == o || isLong(a.text, o) || len(o) == 2 && o[1] != '-' && strings.HasPrefix(a.text, o) && !strings.HasPrefix(a.text, "--") {
				j.opaque(why + " (" + o + ")")
				return
			}
		}
	}
}

// watch runs its arguments joined as shell code, or, with -x, as a command.
func (j *judge) watch(c *cmd, depth int) []word {
	c.knownWrapper = true
	args := c.argWords()
	exec := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-x" || t == "--exec":
			exec = true
		case t == "-n" || t == "--interval" || t == "-q" || t == "--equexit":
			i++
		case strings.HasPrefix(t, "-") && args[i].static:
		default:
			if exec {
				return args[i:]
			}
			var parts []string
			for _, a := range args[i:] {
				if !a.static {
					j.opaque("runs shell code through watch that is only known when it runs")
					return nil
				}
				parts = append(parts, a.text)
			}
			j.code(lit(strings.Join(parts, " ")), "watch", depth)
			return nil
		}
	}
	return nil
}

// flock runs a command after its lock file, or shell code given to -c.
func (j *judge) flock(c *cmd, depth int) []word {
	args := c.argWords()
	for i, a := range args {
		if (a.text == "-c" || a.text == "--command") && i+1 < len(args) {
			c.knownWrapper = true
			j.code(args[i+1], "flock -c", depth)
			return nil
		}
	}
	inner, _ := j.unwrap(c, wrapper{flags: "sxunoFv", values: "wEc", long: []string{"--shared", "--exclusive", "--unlock", "--nonblock", "--close", "--no-fork", "--verbose"}, values2: []string{"--timeout", "--conflict-exit-code"}, skip: 1})
	return inner
}

// subscriptCode matches an array element whose subscript holds code:
// bash evaluates the subscript of a name given to read, printf -v,
// unset, declare, test -v and the like, and runs any command in it.
var subscriptCode = regexp.MustCompile("\\[[^]]*(\\$\\(|`|\\$\\{|\\$[A-Za-z_])")

// subscripts makes a builtin's command opaque when a name it is given
// is an array element whose subscript holds code (a[$(…)]).
func (j *judge) subscripts(c *cmd) {
	for _, a := range c.argWords() {
		j.subscript(a.text)
	}
}

func (j *judge) subscript(text string) {
	if subscriptCode.MatchString(text) {
		j.opaque("names an array element whose subscript bash evaluates, running the command in it (a[$(…)])")
	}
}

// module judges python -m NAME: a module in the workspace is code the
// model may have written, and pdb runs debugger commands and scripts.
func (j *judge) module(prog, name string) {
	first, _, _ := strings.Cut(name, ".")
	switch {
	case name == "pdb":
		j.opaque("runs debugger commands and a script (" + prog + " -m pdb)")
	case first != "" && j.rules.root != "" && (exists(filepath.Join(j.rules.root, first+".py")) || exists(filepath.Join(j.rules.root, first))):
		j.opaque("runs the module " + name + " from the workspace, which the model may have written")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
