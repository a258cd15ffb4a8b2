package shell

import (
	"slices"
	"strings"
)

// gitGlobals reads git's options before its subcommand (git -C . push -f)
// so that the subcommand and its arguments are judged, whatever comes
// first.
func (j *judge) gitGlobals(c *cmd) {
	args := c.words[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.static {
			j.opaque("runs git with arguments only known when they run (" + t + ")")
			c.args = []word{}
			return
		}
		name, _, eq := strings.Cut(t, "=")
		switch {
		case t == "-C" || t == "--git-dir":
			if i+1 < len(args) {
				j.otherRepo(t, args[i+1])
			}
			i++
		case eq && name == "--git-dir":
			j.otherRepo(name, lit(strings.TrimPrefix(t, name+"=")))
		case t == "--work-tree" || t == "--namespace" || t == "--super-prefix":
			i++
		case eq && (name == "--work-tree" || name == "--namespace" || name == "--super-prefix"):
		case t == "-c" || strings.HasPrefix(t, "-c") && !strings.HasPrefix(t, "--"):
			v := strings.TrimPrefix(t, "-c")
			if v == "" && i+1 < len(args) {
				i++
				v = args[i].text
				if !args[i].static {
					j.opaque("sets git configuration only known when it runs")
				}
			}
			key, _, _ := strings.Cut(v, "=")
			if gitCodeKey.MatchString(key) {
				j.opaque("sets git configuration " + key + " on the command line, which makes git run a program")
			}
		case name == "--config-env" || name == "--exec-path" && eq:
			j.opaque("changes what git runs (" + name + ")")
			if !eq {
				i++
			}
		case slices.Contains([]string{"-p", "-P", "--paginate", "--no-pager", "--bare", "--no-replace-objects",
			"--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
			"--no-optional-locks", "--no-advice", "--no-lazy-fetch", "--exec-path", "--html-path",
			"--man-path", "--info-path", "--version", "-v", "--help", "-h"}, t):
		case strings.HasPrefix(t, "-"):
			j.opaque("runs git with an option tern does not know before its command (" + t + ")")
			c.args = []word{}
			return
		default:
			c.key = "git " + t
			c.args = args[i+1:]
			if !slices.Contains(gitCommands, t) {
				j.opaque("runs git " + t + ", which is not a git command tern knows: it may be an alias that runs a program")
			}
			return
		}
	}
	c.args = []word{}
}

// git judges the git subcommands that run other commands.
func (j *judge) git(c *cmd, depth int) []word {
	sub := strings.TrimPrefix(c.key, "git ")
	args := c.argWords()
	switch sub {
	case "submodule":
		for i, a := range args {
			if a.text == "foreach" {
				rest := args[i+1:]
				for len(rest) > 0 && strings.HasPrefix(rest[0].text, "-") {
					rest = rest[1:]
				}
				var parts []string
				for _, r := range rest {
					if !r.static {
						j.opaque("runs shell code through git submodule foreach that is only known when it runs")
						return nil
					}
					parts = append(parts, r.text)
				}
				c.knownWrapper = true
				j.code(lit(strings.Join(parts, " ")), "git submodule foreach", depth)
				return nil
			}
		}
	case "rebase":
		for i, a := range args {
			switch {
			case a.text == "-x" && i+1 < len(args):
				j.code(args[i+1], "git rebase --exec", depth)
			case strings.HasPrefix(a.text, "-x") && !strings.HasPrefix(a.text, "--"):
				j.code(lit(a.text[2:]), "git rebase --exec", depth)
			case isLong(a.text, "--exec"):
				if v, eq, _ := longMatch(a.text, "--exec"); eq {
					j.code(lit(v), "git rebase --exec", depth)
				} else if i+1 < len(args) {
					j.code(args[i+1], "git rebase --exec", depth)
				}
			}
		}
	case "bisect":
		if len(args) > 1 && args[0].text == "run" {
			c.knownWrapper = true
			return args[1:]
		}
	case "config":
		// Any word may be the key (git config -f FILE KEY VALUE).
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") && (gitCodeKey.MatchString(a.text) || !a.static) {
				j.opaque("changes git configuration " + a.text + ", which can make git run a program")
				break
			}
		}
	case "init":
		j.newRepo(c)
	case "difftool", "mergetool":
		j.flagged(c, "gives git a program to run", "-x", "--extcmd", "-t", "--tool")
	case "fetch", "pull", "clone", "push", "ls-remote", "archive", "submodule-update":
		if sub == "clone" {
			j.newRepo(c)
		}
		j.flagged(c, "gives git a program to run", "--upload-pack", "-u", "--receive-pack", "--exec", "--remote-exec")
	case "grep":
		j.flagged(c, "gives git a program to run", "-O", "--open-files-in-pager")
	case "filter-branch", "instaweb":
		j.opaque("runs programs given to git " + sub)
	}
	j.gitOutput(sub, args)
	for _, a := range args {
		if strings.HasPrefix(a.text, "ext::") {
			j.opaque("uses git's ext:: transport, which runs a program")
		}
	}
	return nil
}

// gitOutput keeps git from running unasked when an option makes it write a
// file wherever it names (git diff --output, git archive -o, git
// format-patch -o): "git diff *" allows reading a diff, not writing one
// over a file. The sandbox keeps such a file inside the workspace.
func (j *judge) gitOutput(sub string, args []word) {
	short := sub == "archive" || sub == "format-patch" // their -o names the output
	for _, a := range args {
		t := a.text
		if isLong(t, "--output") || isLong(t, "--output-directory") ||
			short && strings.HasPrefix(t, "-o") && !strings.HasPrefix(t, "--") {
			j.allowed = false
			return
		}
	}
}

// goTool judges the go command's options that name a program to run.
func (j *judge) goTool(c *cmd) {
	args := c.argWords()
	if len(args) > 0 && args[0].text == "generate" {
		j.opaque("runs the commands of //go:generate lines (go generate)")
		return
	}
	if len(args) > 1 && args[0].text == "env" && hasWord(args, "-w") {
		j.opaque("changes the go command's settings (go env -w)")
		return
	}
	for i, a := range args {
		t := strings.TrimPrefix(a.text, "-")
		name, value, _ := strings.Cut(t, "=")
		switch name {
		case "exec", "toolexec", "vettool", "-exec", "-toolexec", "-vettool":
			j.opaque("gives go a program to run (-" + strings.TrimPrefix(name, "-") + ")")
			return
		case "ldflags", "gcflags", "asmflags", "gccgoflags", "-ldflags":
			if value == "" && i+1 < len(args) {
				value = args[i+1].text
			}
			if strings.Contains(value, "extld") {
				j.opaque("gives the linker a program to run (-extld)")
				return
			}
		}
		if !a.static && a.unknown {
			j.opaque("runs go with arguments only known when they run (" + a.text + ")")
			return
		}
	}
}

// otherRepo judges git -C DIR and --git-dir DIR: another repository than
// the workspace's has a config of its own, which the model may have
// written, and which can name programs git runs (core.fsmonitor,
// core.pager, hooks).
func (j *judge) otherRepo(opt string, dir word) {
	d := strings.TrimSuffix(dir.text, "/")
	if dir.static && (d == "." || d == "" || j.rules.root != "" && (d == j.rules.root || d == j.rules.root+"/.git") || d == ".git") {
		return
	}
	j.opaque("runs git on another repository (" + opt + " " + dir.text + "), whose own config can name programs to run")
}

// newRepo judges git init and git clone: hooks from a template directory,
// and configuration given to the new repository that names a program
// (core.hooksPath, core.fsmonitor), run as soon as it is made.
func (j *judge) newRepo(c *cmd) {
	j.flagged(c, "gives git hooks from a template directory", "--template")
	args := c.argWords()
	for i, a := range args {
		v, ok := "", false
		switch {
		case (a.text == "-c" || a.text == "--config") && i+1 < len(args):
			v, ok = args[i+1].text, true
		case strings.HasPrefix(a.text, "--config="):
			v, ok = strings.TrimPrefix(a.text, "--config="), true
		}
		if key, _, _ := strings.Cut(v, "="); ok && gitCodeKey.MatchString(key) {
			j.opaque("sets git configuration " + key + " in the new repository, which makes git run a program")
		}
	}
}
