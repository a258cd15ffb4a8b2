package shell

import (
	"regexp"
	"slices"
	"strings"
)

// What tern knows about programs that run other programs or code.

// codeVars are variables that make programs run or load other code.
var codeVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "PS4": true,
	"SHELLOPTS": true, "BASHOPTS": true, "IFS": true, "SHELL": true, "CDPATH": true,
	"GOFLAGS": true, "CC": true, "CXX": true, "GOTOOLCHAIN": true, "CGO_LDFLAGS": true, "CGO_CFLAGS": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true,
	"GIT_EDITOR": true, "GIT_ASKPASS": true, "GIT_EXEC_PATH": true, "GIT_DIR": true, "GIT_PROXY_COMMAND": true,
	"GIT_SEQUENCE_EDITOR": true, "SSH_ASKPASS": true, "GIT_TEMPLATE_DIR": true,
	"PAGER": true, "EDITOR": true, "VISUAL": true, "BROWSER": true, "MANPAGER": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PYTHONUSERBASE": true,
	"PERL5LIB": true, "PERL5OPT": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
	"MAKEFLAGS": true, "MAKESHELL": true, "NPM_CONFIG_SCRIPT_SHELL": true,
	"LESSOPEN": true, "LESSCLOSE": true, "LESS": true, "MANOPT": true, "TAR_OPTIONS": true, "ZIPOPT": true,
}

// wrapper describes a program that runs a command given as its remaining
// arguments, after its own options.
type wrapper struct {
	flags    string // short options without a value
	optional string // short options whose value, if any, is attached (-i{})
	values   string // short options followed by a value
	long     []string
	values2  []string // long options followed by a value unless given with "="
	skip     int      // operands before the command (timeout's duration)
	digits   bool     // -N options (nice -10)
	// transparent wrappers pass allow coverage through: "timeout 60 go test"
	// is allowed when "go test *" is.
	transparent bool
}

var wrappers = map[string]wrapper{
	"env":      {flags: "0iv", values: "uC", long: []string{"--ignore-environment", "--null", "--debug"}, values2: []string{"--unset", "--chdir"}, transparent: true},
	"nice":     {values: "n", values2: []string{"--adjustment"}, digits: true, transparent: true},
	"nohup":    {transparent: true},
	"timeout":  {flags: "v", values: "sk", long: []string{"--preserve-status", "--foreground", "--verbose"}, values2: []string{"--signal", "--kill-after"}, skip: 1, transparent: true},
	"stdbuf":   {values: "ioe", values2: []string{"--input", "--output", "--error"}, transparent: true},
	"setsid":   {flags: "cfw", long: []string{"--ctty", "--fork", "--wait"}, transparent: true},
	"time":     {flags: "pvqa", values: "fo", long: []string{"--portability", "--verbose", "--quiet", "--append"}, values2: []string{"--format", "--output"}, transparent: true},
	"command":  {flags: "p", transparent: true},
	"builtin":  {transparent: true},
	"exec":     {flags: "cl", values: "a", transparent: true},
	"ionice":   {flags: "t", values: "cn", long: []string{"--ignore"}, values2: []string{"--class", "--classdata"}, transparent: true},
	"unbuffer": {transparent: true},
	"busybox":  {transparent: true},
	"chroot":   {long: []string{"--skip-chdir"}, values2: []string{"--userspec", "--groups"}, skip: 1},
	"taskset":  {flags: "ac", long: []string{"--all-tasks", "--cpu-list"}, skip: 1},
	"sudo": {flags: "AbEeHiKknPSsV", values: "CDghpRrTUu",
		long:    []string{"--askpass", "--background", "--edit", "--preserve-env", "--set-home", "--login", "--remove-timestamp", "--reset-timestamp", "--non-interactive", "--preserve-groups", "--stdin", "--shell"},
		values2: []string{"--close-from", "--chdir", "--group", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--user"}},
	"doas":    {flags: "Lns", values: "Cu"},
	"runuser": {flags: "lmp", values: "ugGsw", long: []string{"--login", "--preserve-environment"}, values2: []string{"--user", "--group", "--supp-group", "--shell"}},
	"xargs": {flags: "0prtxo", optional: "ile", values: "aEdILnPs",
		long:    []string{"--null", "--interactive", "--verbose", "--exit", "--no-run-if-empty", "--open-tty", "--show-limits"},
		values2: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"strace": {flags: "cCdDfFhiqrtTvVwxyzZ", values: "abeEIoOpPsSuUX"},
	"ltrace": {flags: "bCcDfhiLrStTV", values: "aAeFlnopsuwx"},
}

// outliving programs hand a command to something that keeps running
// after tern.
var outliving = map[string]bool{
	"systemd-run": true, "at": true, "batch": true, "crontab": true, "tmux": true, "screen": true,
	"daemonize": true, "start-stop-daemon": true, "dtach": true, "abduco": true, "launchctl": true,
	"disown": false,
}

// shells take shell code with -c.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"rbash": true, "yash": true, "fish": true, "tcsh": true, "csh": true,
}

// interp describes an interpreter: the options that give it inline code,
// and those that only print its version.
type interp struct {
	inline   string   // short options whose value is code (-c, -e)
	long     []string // long options whose value is code
	values   string   // short options followed by a value that is not code
	attached string   // short options whose value is the rest of the word
	module   string   // short option naming a module to run (python -m)
	version  []string // options that only print something
	// subs are subcommands: "code" reads code, "script" runs a file, and
	// "" runs the program's own tool (deno fmt).
	subs map[string]string
}

var interpreters = map[string]interp{
	"python":    {inline: "c", values: "WX", module: "m", version: []string{"-V", "--version", "-h", "--help"}},
	"node":      {inline: "epr", long: []string{"--eval", "--print", "--require", "--import", "--loader"}, version: []string{"-v", "--version", "-h", "--help"}},
	"perl":      {inline: "eEMm", attached: "IilCdDx0", version: []string{"-v", "-V", "-h"}},
	"ruby":      {inline: "er", attached: "IxCF0", version: []string{"-v", "--version", "-h", "--help"}},
	"php":       {inline: "rBRE", values: "cdz", version: []string{"-v", "--version", "-h", "--help", "-m", "-i"}},
	"lua":       {inline: "el", version: []string{"-v"}},
	"Rscript":   {inline: "e", version: []string{"--version"}},
	"R":         {inline: "e", version: []string{"--version"}},
	"osascript": {inline: "e"},
	"tclsh":     {},
	"expect":    {inline: "c"},
	"julia":     {inline: "eE", long: []string{"--eval", "--print"}, version: []string{"-v", "--version"}},
	"pwsh":      {inline: "ce", long: []string{"-command", "-encodedcommand", "-Command", "-EncodedCommand"}},
	"deno": {inline: "e", long: []string{"--eval"}, version: []string{"-V", "--version", "-h", "--help"},
		subs: map[string]string{"eval": "code", "run": "script", "x": "script", "repl": "code", "test": "", "fmt": "", "lint": "", "check": "", "doc": "", "info": "", "cache": "", "install": "", "task": "", "bench": "", "compile": "", "types": ""}},
	"bun": {inline: "ep", long: []string{"--eval", "--print"}, version: []string{"-v", "--version", "-h", "--help"},
		subs: map[string]string{"run": "script", "x": "script", "exec": "code", "test": "", "install": "", "add": "", "remove": "", "build": "", "pm": "", "init": "", "create": "", "update": "", "outdated": "", "link": "", "upgrade": ""}},
}

// interpreterName maps versioned names (python3.12, nodejs, luajit) to
// the entries above.
func interpreterName(prog string) string {
	switch {
	case regexp.MustCompile(`^(python|pypy)[0-9.]*$`).MatchString(prog):
		return "python"
	case prog == "nodejs" || prog == "ts-node" || prog == "tsx":
		return "node"
	case regexp.MustCompile(`^(perl|ruby|php|lua|luajit|lua)[0-9.]*$`).MatchString(prog):
		return strings.TrimRight(strings.TrimSuffix(prog, "jit"), "0123456789.")
	case prog == "powershell":
		return "pwsh"
	case prog == "wish":
		return "tclsh"
	}
	return prog
}

// gitCommands are git's own commands; any other name may be an alias,
// and an alias can run a shell command.
var gitCommands = strings.Fields(`add am annotate apply archive bisect blame branch bundle cat-file
check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick
citool clean clone column commit commit-graph commit-tree config count-objects credential describe
diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch
for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help init
instaweb interpret-trailers log ls-files ls-remote ls-tree maintenance merge merge-base merge-file
merge-tree mergetool mktag mktree mv name-rev notes prune pull push range-diff read-tree rebase
reflog remote repack replace request-pull rerere reset restore rev-list rev-parse revert rm
shortlog show show-branch show-ref sparse-checkout stash status stripspace submodule switch
symbolic-ref tag update-index update-ref var verify-commit verify-pack verify-tag version
whatchanged worktree write-tree lfs filter-repo`)

// gitCodeKey matches configuration keys that make git run a program.
var gitCodeKey = regexp.MustCompile(`(?i)^(alias\..*|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|attributesfile|excludesfile)|.*\.(textconv|command|cmd|driver|helper|program|tool|path|proxy|uploadpack|receivepack)|diff\.external|filter\..*|credential\..*|sequence\.editor|pager\..*|gpg\..*|protocol\..*|include\..*|includeif\..*|ssh\..*|merge\..*|mergetool\..*|difftool\..*|interactive\.difffilter|web\.browser|browser\..*|man\..*|uploadpack\..*|receivepack\..*|remote\..*|url\..*)$`)

// program judges what a known program does with its arguments. It returns
// the command a wrapper runs, if any, and whether allow coverage passes
// through the wrapper.
func (j *judge) program(c *cmd, depth int) (inner []word, transparent bool) {
	args := c.argWords()
	p := c.prog
	switch {
	case p == "eval":
		j.opaque("runs text as shell code (eval)")
	case p == "source" || p == ".":
		j.opaque("runs a file as shell code (" + p + ")")
	case p == "trap":
		if len(args) >= 2 && !(args[0].static && args[0].text == "-") {
			j.code(args[0], "a trap's code", depth)
		}
	case p == "alias" || p == "enable" && hasWord(args, "-f") || p == "shopt" && hasWord(args, "expand_aliases"):
		j.opaque("changes what command names mean (" + p + ")")
	case p == "command" && (hasWord(args, "-v") || hasWord(args, "-V")):
	case outliving[p]:
		j.opaque("hands a command to " + p + ", which keeps it running after tern")
	case p == "parallel":
		j.opaque("runs commands built from its input (parallel)")
	case shells[p]:
		j.shell(c, depth)
	case interpreters[interpreterName(p)].inline != "" || interpreterName(p) == "tclsh":
		j.interpreter(c)
	case p == "awk" || p == "gawk" || p == "mawk" || p == "nawk":
		j.awk(c)
	case p == "sed" || p == "gsed":
		j.sed(c)
	case p == "find":
		j.find(c, depth)
	case p == "git":
		return j.git(c, depth), false
	case p == "go":
		j.goTool(c)
	case p == "tar" || p == "bsdtar":
		j.flagged(c, "gives tar a program to run", "--to-command", "--checkpoint-action", "-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script")
	case p == "rsync":
		j.flagged(c, "gives rsync a program to run", "-e", "--rsh", "--rsync-path")
	case p == "ssh" || p == "scp" || p == "sftp":
		for _, a := range args {
			if strings.Contains(strings.ToLower(a.text), "proxycommand") || strings.Contains(strings.ToLower(a.text), "localcommand") {
				j.opaque("gives " + p + " a local command to run")
			}
		}
	case p == "ed" || p == "red" || p == "ex":
		j.opaque("runs " + p + " commands from its input, which can run programs (!)")
	case p == "vi" || p == "vim" || p == "nvim" || p == "view" || p == "gvim":
		for _, a := range args {
			// Single-letter options combine (-es, -Nc): any that holds c,
			// S or s gives the editor commands, from the line or its
			// input; e and E read them from the input as ex does.
			if strings.HasPrefix(a.text, "+") || a.text == "--cmd" ||
				strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.ContainsAny(a.text, "cSseE") {
				j.opaque("runs editor commands, which can run programs")
			}
		}
	case p == "kak":
		j.flagged(c, "runs editor commands, which can run programs", "-e", "-E")
	case p == "lldb":
		j.flagged(c, "runs debugger commands, which can run programs", "-o", "-O", "-s", "-S", "-k", "-K",
			"--one-line", "--one-line-before-file", "--one-line-on-crash", "--source", "--source-before-file", "--source-on-crash")
	case p == "mapfile" || p == "readarray":
		j.flagged(c, "runs a callback given as shell code", "-C")
		j.subscripts(c)
	case p == "complete" || p == "compgen":
		j.flagged(c, "runs a command or function to complete words", "-C", "-F")
	case p == "bind":
		j.flagged(c, "binds a key to shell code", "-x")
	case p == "fc":
		j.opaque("runs commands again from the shell's history (fc)")
	case p == "printf" || p == "read" || p == "unset" || p == "test" || p == "[" || p == "wait" || p == "getopts":
		j.subscripts(c)
	case p == "less" || p == "more" || p == "most":
		for _, a := range args {
			if strings.HasPrefix(a.text, "+") || strings.HasPrefix(a.text, "--cmd") {
				j.opaque("gives " + p + " commands to run, which can start programs (+)")
			}
		}
	case p == "man":
		j.flagged(c, "gives man a program to run", "-P", "--pager", "-H", "--html")
	case p == "zip":
		j.flagged(c, "gives zip a program to run", "-TT", "--unzip-command")
	case p == "script":
		for i, a := range args {
			short := strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "c")
			if short && !strings.HasSuffix(a.text, "c") {
				c.knownWrapper = true
				j.code(lit(a.text[strings.IndexByte(a.text, 'c')+1:]), "script -c", depth)
			} else if (short || isLong(a.text, "--command") && !strings.Contains(a.text, "=")) && i+1 < len(args) {
				c.knownWrapper = true
				j.code(args[i+1], "script -c", depth)
			} else if v, eq, ok := longMatch(a.text, "--command"); ok && eq {
				c.knownWrapper = true
				j.code(lit(v), "script -c", depth)
			}
		}
	case p == "sg":
		// sg GROUP [-c] COMMAND: the command is shell code.
		var parts []string
		for i, a := range args {
			if i == 0 || a.text == "-c" && i == 1 || a.text == "-" && i == 0 {
				continue
			}
			if !a.static {
				j.opaque("runs shell code through sg that is only known when it runs")
				return nil, false
			}
			parts = append(parts, a.text)
		}
		if len(parts) > 0 {
			c.knownWrapper = true
			j.code(lit(strings.Join(parts, " ")), "sg", depth)
		}
	case p == "emacs":
		j.flagged(c, "runs editor code", "--eval", "-l", "--load", "-f", "--funcall", "--script", "-x")
	case p == "gdb":
		j.flagged(c, "runs debugger commands", "-ex", "-x", "--command", "-iex", "-ix", "--eval-command")
	case p == "sqlite3":
		for _, a := range args {
			if sqliteShell.MatchString(a.text) {
				j.opaque("runs shell commands from sqlite3 (.shell or .system)")
			}
		}
	case p == "su":
		for i, a := range args {
			if (a.text == "-c" || a.text == "--command") && i+1 < len(args) {
				j.code(args[i+1], "su's command", depth)
			} else if strings.HasPrefix(a.text, "--command=") {
				j.code(lit(strings.TrimPrefix(a.text, "--command=")), "su's command", depth)
			}
		}
	case p == "watch":
		return j.watch(c, depth), false
	case p == "flock":
		return j.flock(c, depth), false
	case p == "xargs":
		inner, ok := j.unwrap(c, wrappers[p])
		if !ok {
			return nil, false
		}
		if inner == nil {
			inner = []word{lit("echo")}
		}
		// The arguments come from its input.
		return append(inner, word{text: "(input)", unknown: true}), false
	default:
		w, ok := wrappers[p]
		if !ok {
			return nil, false
		}
		if p == "env" && envSplit(args) {
			j.opaque("splits a string into a command (env -S)")
			return nil, false
		}
		inner, ok := j.unwrap(c, w)
		if !ok || inner == nil {
			return nil, false
		}
		if p == "env" {
			// env's own assignments set the command's environment.
			for len(inner) > 0 && inner[0].static && isAssign(inner[0].text) {
				name, _, _ := strings.Cut(inner[0].text, "=")
				j.assign(name)
				inner = inner[1:]
				w.transparent = false
			}
			if len(inner) == 0 {
				return nil, false
			}
		}
		return inner, w.transparent
	}
	return nil, false
}

var assignRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssign(s string) bool { return assignRe.MatchString(s) }

func envSplit(args []word) bool {
	for _, a := range args {
		if a.text == "-S" || strings.HasPrefix(a.text, "--split-string") || strings.HasPrefix(a.text, "-S") && a.static && len(a.text) > 2 && !strings.HasPrefix(a.text, "--") {
			return true
		}
		if a.static && !strings.HasPrefix(a.text, "-") {
			return false
		}
	}
	return false
}

// isLong reports whether arg is the long option opt, perhaps abbreviated
// or with "=value".
func isLong(arg, opt string) bool {
	_, _, ok := longMatch(arg, opt)
	return ok
}

func hasWord(ws []word, s string) bool {
	return slices.ContainsFunc(ws, func(w word) bool { return w.text == s })
}

// unwrap finds the command a wrapper runs. ok is false when the wrapper's
// options cannot be read; inner is nil when it runs none.
func (j *judge) unwrap(c *cmd, w wrapper) (inner []word, ok bool) {
	c.knownWrapper = true
	args := c.argWords()
	skip := w.skip
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.unknown {
				j.opaque("runs a command through " + c.prog + " that is only known when it runs (" + a.text + ")")
				return nil, false
			}
			if skip > 0 {
				skip--
				continue
			}
			return args[i:], true
		}
		t := a.text
		switch {
		case t == "--":
			rest := args[i+1:]
			for ; skip > 0 && len(rest) > 0; skip-- {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				return nil, true
			}
			return rest, true
		case strings.HasPrefix(t, "--"):
			name, _, eq := strings.Cut(t, "=")
			switch {
			case slices.Contains(w.long, name):
			case slices.Contains(w.values2, name):
				if !eq {
					i++
				}
			default:
				j.opaque("cannot tell which command " + c.prog + " runs (it has the option " + t + ")")
				return nil, false
			}
		case strings.HasPrefix(t, "-") && len(t) > 1 && skip == w.skip:
			if w.digits && isNumber(t[1:]) {
				continue
			}
			for k := 1; k < len(t); k++ {
				ch := t[k]
				switch {
				case strings.IndexByte(w.flags, ch) >= 0:
					continue
				case strings.IndexByte(w.optional, ch) >= 0:
				case strings.IndexByte(w.values, ch) >= 0:
					if k == len(t)-1 {
						i++
					}
				default:
					j.opaque("cannot tell which command " + c.prog + " runs (it has the option " + t + ")")
					return nil, false
				}
				break
			}
		case skip > 0:
			skip--
		default:
			return args[i:], true
		}
	}
	return nil, true
}

// code judges a word that holds shell code.
func (j *judge) code(w word, what string, depth int) {
	if !w.static {
		j.opaque("runs shell code that is only known when it runs (" + what + ")")
		return
	}
	j.script(w.text, depth+1)
}

// shell judges sh, bash and the like: -c code is read like the command
// line itself; a script file or code from the input cannot be read. With
// -c, the code is the first argument after the options (bash -c -e 'x',
// sh -c -- 'x'), wherever the c stands among them.
func (j *judge) shell(c *cmd, depth int) {
	args := c.argWords()
	inline := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.static:
			j.opaque("runs " + c.prog + " with arguments only known when they run")
			return
		case a.text == "--" || a.text == "-":
			if i+1 < len(args) {
				if inline {
					j.code(args[i+1], c.prog+" -c", depth)
					return
				}
				j.opaque("runs the script " + args[i+1].text + ", which tern cannot read")
				return
			}
		case a.text == "-o" || a.text == "+o" || a.text == "-O" || a.text == "+O" || a.text == "--rcfile" || a.text == "--init-file":
			if a.text == "--rcfile" || a.text == "--init-file" {
				j.opaque("runs " + c.prog + " with a start-up file")
				return
			}
			i++
		case strings.HasPrefix(a.text, "--"):
		case strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+"):
			if strings.Contains(a.text[1:], "c") {
				inline = true
			}
			if strings.Contains(a.text[1:], "s") && !inline {
				j.opaque("reads " + c.prog + " code from its input")
				return
			}
		case inline:
			j.code(a, c.prog+" -c", depth)
			return
		default:
			j.opaque("runs the script " + a.text + ", which the model may have written")
			return
		}
	}
	if inline {
		j.opaque("runs " + c.prog + " -c with no code")
		return
	}
	j.opaque("reads " + c.prog + " code from its input")
}
