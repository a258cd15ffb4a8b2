package shell

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// script parses src and judges everything it would run.
func (j *judge) script(src string, depth int) {
	if depth > maxDepth {
		j.opaque("nests shell code in shell code too deeply to read")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		j.opaque("cannot be read by tern's shell parser (" + err.Error() + ")")
		return
	}
	if j.funcs == nil {
		j.funcs = map[string]bool{}
	}
	// Functions may be called before the text that defines them is seen.
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			j.funcs[fd.Name.Value] = true
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			j.opaque("uses command substitution ($(…) or backquotes), whose output tern cannot know")
		case *syntax.ParamExp:
			j.paramExp(n)
		case *syntax.ArithmExp:
			j.arithm(n.X)
		case *syntax.ArithmCmd:
			j.arithm(n.X)
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				j.arithm(x)
			}
		case *syntax.CStyleLoop:
			j.arithm(n.Init, n.Cond, n.Post)
		case *syntax.DeclClause:
			// declare -i makes every later assignment arithmetic.
			for _, a := range n.Args {
				flag := ""
				if a.Value != nil {
					flag = a.Value.Lit()
				} else if a.Name != nil {
					flag = a.Name.Value
				}
				if a.Naked && strings.HasPrefix(flag, "-") && strings.Contains(flag, "i") {
					j.opaque(arithWhy)
				}
				if a.Name != nil {
					j.subscript(a.Name.Value)
				}
				if a.Value != nil {
					j.subscript(resolve(a.Value).text)
				}
				if a.Index != nil {
					j.arithm(a.Index)
				}
			}
		case *syntax.UnaryTest:
			if w, ok := n.X.(*syntax.Word); ok && n.Op == syntax.TsVarSet {
				j.subscript(resolve(w).text)
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := x.(*syntax.Word); ok && !isNumeral(w.Lit()) {
						j.opaque(arithWhy)
					}
				}
			}
		case *syntax.FuncDecl:
			if n.Name != nil && calls(n.Body, n.Name.Value) {
				j.destroys("defines a function that starts itself (a fork bomb)")
			}
		case *syntax.Assign:
			if n.Name != nil {
				j.assign(n.Name.Value)
			}
		case *syntax.Stmt:
			j.redirects(n)
			if call, ok := n.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				words := make([]word, len(call.Args))
				for i, w := range call.Args {
					words[i] = resolve(w)
				}
				var assigns []string
				for _, a := range call.Assigns {
					assigns = append(assigns, source(a))
				}
				if !j.command(words, assigns, depth) {
					j.allowed = false
				}
			}
		}
		return true
	})
}

// arithWhy says why arithmetic over variables cannot be judged: bash
// evaluates a variable's value as an expression there, and an array
// subscript in it (a[$(…)]) runs commands.
const arithWhy = "evaluates variables as arithmetic, which runs any command their values hold (a[$(…)])"

// arithm makes the line opaque when an arithmetic expression reads a
// variable.
func (j *judge) arithm(xs ...syntax.ArithmExpr) {
	for _, x := range xs {
		if x != nil && readsVariables(x) {
			j.opaque(arithWhy)
			return
		}
	}
}

// readsVariables reports whether an arithmetic expression reads a
// variable other than $?, $#, $$ and $!.
func readsVariables(x syntax.Node) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Param == nil || !strings.Contains("?#$!", n.Param.Value) || n.Index != nil {
				found = true
			}
		case *syntax.Word:
			if lit := n.Lit(); lit != "" && !isNumeral(lit) {
				found = true
			}
		}
		return !found
	})
	return found
}

// isNumeral reports whether s is an integer constant (10, 0x1f, 2#101).
func isNumeral(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// paramExp judges expansions that evaluate a value as code: ${!x}
// (indirection, whose target may be a[$(…)]), ${x@P} (prompt expansion,
// which runs $(…)), and subscripts or slices computed from variables.
func (j *judge) paramExp(n *syntax.ParamExp) {
	switch {
	case n.Excl && n.Names == 0:
		j.opaque("expands a variable named by another variable (${!x}), which can run commands")
	case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P"):
		j.opaque("expands a variable as a prompt (${x@P}), which runs the commands its value holds")
	case n.Index != nil && readsVariables(n.Index):
		j.opaque(arithWhy)
	case n.Slice != nil && (n.Slice.Offset != nil && readsVariables(n.Slice.Offset) || n.Slice.Length != nil && readsVariables(n.Slice.Length)):
		j.opaque(arithWhy)
	}
}

// calls reports whether body runs the command name.
func calls(body syntax.Node, name string) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if w := resolve(c.Args[0]); w.static && w.text == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// assign judges a variable set by the line: some make programs load or
// run other code.
func (j *judge) assign(name string) {
	if codeVars[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "GIT_CONFIG") || strings.HasPrefix(name, "BASH_FUNC_") {
		j.opaque("sets " + name + ", which changes what programs run or load")
	}
}

// redirects judges a statement's redirections: writing a file keeps the
// line from being allowed without asking, and a here-document's text is
// checked like a command's.
func (j *judge) redirects(st *syntax.Stmt) {
	for _, r := range st.Redirs {
		if r.Hdoc != nil {
			j.text(resolve(r.Hdoc).text)
		}
		if r.Word == nil {
			continue
		}
		w := resolve(r.Word)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
			if r.Op == syntax.DplOut && w.static && (w.text == "-" || isNumber(w.text)) {
				continue
			}
			if w.static && (w.text == "/dev/null" || w.text == "/dev/stdout" || w.text == "/dev/stderr") {
				continue
			}
			j.allowed, j.writes = false, true
			j.text("> " + w.text)
		case syntax.WordHdoc:
			j.text(w.text)
		}
	}
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// text checks free text (a here-document, a redirection target) against
// the destructive patterns that are not tied to a program.
func (j *judge) text(s string) {
	for _, d := range j.rules.danger {
		if d.cmd == nil && d.args.MatchString(s) {
			j.destroys(d.why)
		}
	}
	if sqliteShell.MatchString(s) {
		j.opaque("runs shell commands from sqlite3 (.shell or .system)")
	}
}

var sqliteShell = regexp.MustCompile(`(^|\n)\s*\.(shell|system)\b`)

// command judges one simple command: its words after quote removal and
// the assignments before it. It reports whether an allow pattern covers
// it.
func (j *judge) command(words []word, assigns []string, depth int) bool {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.text
	}
	// A command judged as the tail of another has had its later words
	// looked at already.
	skip := j.tail
	j.tail = false
	written := strings.Join(append(append([]string(nil), assigns...), texts...), " ")
	j.seen = append(j.seen, written)
	name := words[0]
	if !name.static {
		j.opaque("runs a command whose name is only known when it runs (" + name.text + ")")
		return false
	}
	prog := name.text
	if strings.Contains(prog, "/") {
		abs := path.IsAbs(prog)
		if !abs || j.rules.root != "" && (prog == j.rules.root || strings.HasPrefix(prog, j.rules.root+"/")) {
			j.opaque("runs " + prog + ", a program in the workspace the model may have written")
			return false
		}
		prog = path.Base(prog)
	}
	c := &cmd{words: words, prog: prog, key: prog}
	if prog == "git" {
		j.gitGlobals(c)
	}
	canon := strings.TrimSpace(c.key + " " + c.argText())
	for _, t := range []string{written, canon} {
		if pat, ok := j.rules.denies(t); ok {
			j.deny(pat)
		}
	}
	j.dangers(c)
	covered := j.rules.allows(written)
	if j.funcs[name.text] {
		return true // its body is judged where it is defined
	}
	inner, transparent := j.program(c, depth)
	if inner != nil {
		innerCovered := j.command(inner, nil, depth)
		if transparent {
			return covered || innerCovered
		}
		return covered && innerCovered
	}
	if !c.knownWrapper && !skip {
		j.suffixes(words)
	}
	return covered
}

// suffixes looks for commands run by programs tern does not know as
// wrappers (chrt 10 rm -rf /, fakeroot sh -c '…'): every later word that
// names a program with a destructive pattern, a deny pattern, a shell or
// an interpreter given an option is judged as the start of a command.
// What that command would be or do is taken as the line's, which can only
// make the line ask more.
func (j *judge) suffixes(words []word) {
	const maxTails = 16
	tails := 0
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !w.static {
			continue
		}
		base := path.Base(w.text)
		if i == len(words)-1 {
			break // a program named last is given nothing to act on (which rm, echo mv)
		}
		next := i+1 < len(words) && strings.HasPrefix(words[i+1].text, "-")
		code := next && (shells[base] || interpreters[interpreterName(base)].inline != "") || base == "eval"
		if !code && !j.rules.dangerous(base) && !j.rules.denyNames(base) {
			continue
		}
		if tails++; tails > maxTails {
			j.opaque("names too many programs in the arguments of one command to judge them all")
			return
		}
		sub := &judge{rules: j.rules, funcs: map[string]bool{}, allowed: true, tail: true}
		sub.command(words[i:], nil, 0)
		if sub.danger != "" {
			j.destroys(sub.danger)
		}
		if sub.denied != "" {
			j.deny(sub.denied)
		}
		if code && sub.why != "" {
			j.opaque(sub.why)
		}
	}
}

// cmd is a simple command being judged.
type cmd struct {
	words []word
	prog  string // the program's base name
	// key names it for the destructive patterns: the program, or
	// "git SUBCOMMAND".
	key string
	// args are the words after the program (after git's global options).
	args []word
	// knownWrapper is set once the program is known to run another
	// command given in its arguments.
	knownWrapper bool
}

func (c *cmd) argWords() []word {
	if c.args != nil {
		return c.args
	}
	return c.words[1:]
}

func (c *cmd) argText() string {
	var parts []string
	for _, w := range c.argWords() {
		parts = append(parts, w.text)
	}
	return strings.Join(parts, " ")
}

// unknownArgs reports whether an argument may expand to options.
func (c *cmd) unknownArgs() bool {
	for _, w := range c.argWords() {
		if w.unknown {
			return true
		}
	}
	return false
}
