package models

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// A reply that is one command line, and nothing else but a shell's name
// or the model saying it runs it, is a call of the tool that runs
// commands. A lead-in that tells the reader what to run ("To expose it,
// run:") makes it an answer, and so does prose after it.

// commandCall reads a reply that is one command line as a call of the
// tool that runs commands: the command alone, after a word naming a
// shell (bash), or after a short announcement ("I'll list the files:"),
// fenced or not, with nothing after it. A reply that goes on to explain
// is an answer that shows a command.
func commandCall(text string, specs []ToolSpec, q quoting) (RepairedCall, [2]int, bool) {
	tool, param := commandTool(specs)
	if tool == "" {
		return RepairedCall{}, [2]int{}, false
	}
	cmd, start, ok := loneCommand(text, q)
	if !ok {
		return RepairedCall{}, [2]int{}, false
	}
	args, _ := json.Marshal(map[string]string{param: cmd})
	return RepairedCall{ToolCall: ToolCall{Name: tool, Arguments: args}, Path: RepairCommand}, [2]int{start, len(text)}, true
}

// commandTool is the one offered tool that runs commands: by its name
// (run_command, bash, shell, terminal), else the one whose only required
// parameter is a command. It returns "" when there is none or more than
// one.
func commandTool(specs []ToolSpec) (name, param string) {
	var found []string
	var params []string
	for _, s := range specs {
		req := requiredParams(SchemaParams(s.Parameters))
		if len(req) != 1 || !isCommandParam(req[0].Name) {
			continue
		}
		found, params = append(found, s.Name), append(params, req[0].Name)
	}
	if len(found) != 1 {
		for i, n := range found {
			if slices.Contains(toolAliases["run_command"], normalizeName(n)) || normalizeName(n) == "run_command" {
				return n, params[i]
			}
		}
		return "", ""
	}
	return found[0], params[0]
}

// shellWords name a shell, as the language of a fence or alone on the
// line above a command.
var shellWords = map[string]bool{"bash": true, "sh": true, "shell": true, "zsh": true, "console": true, "terminal": true,
	"cmd": true, "powershell": true, "ps1": true, "pwsh": true, "fish": true, "bat": true}

// loneCommand finds the command of a reply that is one: the text, its
// last fenced block or its last line, with at most a shell's name or one
// short lead-in before it and nothing after. start is where the command
// text begins.
func loneCommand(text string, q quoting) (cmd string, start int, ok bool) {
	body := strings.TrimRight(text, " \t\r\n")
	if body == "" || len(body) > 1200 {
		return "", 0, false
	}
	lead := ""
	if m := actionTag.FindStringSubmatchIndex(body); m != nil && !notActions[strings.ToLower(body[m[2]:m[3]])] {
		// A tag that names an action around the command (<execute>ls
		// -la</execute>) is read as the command it holds.
		// The text before the tag is kept as it is, so positions in it
		// hold in text too.
		body = strings.TrimRight(body[:m[0]]+body[m[4]:m[5]], " \t\r\n")
	}
	if ms := fence.FindAllStringSubmatchIndex(body, -1); len(ms) > 0 {
		m := ms[len(ms)-1]
		lang := strings.ToLower(body[m[2]:m[3]])
		if len(ms) > 1 || m[1] != len(body) || !(lang == "" || shellWords[lang]) {
			return "", 0, false
		}
		var lines []string
		for _, l := range strings.Split(body[m[4]:m[5]], "\n") {
			l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if !commandLine(l) {
				return "", 0, false
			}
			lines = append(lines, l)
		}
		if len(lines) == 0 || len(lines) > 5 {
			return "", 0, false
		}
		cmd, start, lead = strings.Join(lines, "\n"), m[0], body[:m[0]]
	} else {
		i := strings.LastIndexByte(body, '\n') + 1
		line := strings.TrimSpace(body[i:])
		line = strings.TrimSpace(strings.TrimPrefix(strings.Trim(line, "`"), "$ "))
		if !commandLine(line) || q.example(i) {
			return "", 0, false
		}
		cmd, start, lead = line, i, body[:i]
	}
	lead = strings.TrimSpace(lead)
	switch {
	case lead == "", shellWords[strings.ToLower(lead)]:
		start = 0
	case announcement(lead):
	default:
		return "", 0, false
	}
	return cmd, start, true
}

// actionTag matches a reply that ends in one tag pair around text.
var actionTag = regexp.MustCompile(`(?s)<([A-Za-z_][\w\-:]{0,30})(?:\s[^<>]*)?>\s*([^<>]*?)\s*</([A-Za-z_][\w\-:]{0,30})>$`)

// notActions are tags around text that do not ask to run it.
var notActions = map[string]bool{"answer": true, "final": true, "final_answer": true, "response": true, "output": true,
	"result": true, "think": true, "thinking": true, "reasoning": true, "code": true, "pre": true, "p": true, "b": true,
	"i": true, "em": true, "strong": true, "summary": true, "example": true, "kbd": true, "samp": true, "tt": true}

// announcement reports whether lead is a short lead-in to a command: one
// or two sentences, no code, ending with what comes next.
func announcement(lead string) bool {
	if len(lead) > 300 || strings.Contains(lead, "```") || strings.Count(lead, "\n") > 3 {
		return false
	}
	if len(sentenceMark.FindAllString(lead, -1)) > 2 || addressesReader.MatchString(lead) {
		return false
	}
	return selfAnnounce.MatchString(lead)
}

// sentenceMark ends a sentence; selfAnnounce is a model saying what it
// does next ("Let me list the files:", "Running the tests."), and
// addressesReader is a lead-in that tells the reader what to run ("To
// expose it, use:", "For example with ngrok:"): that is an answer.
var (
	sentenceMark    = regexp.MustCompile(`[.!?](\s|$)`)
	selfAnnounce    = regexp.MustCompile(`(?i)\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|let me|let's|let us|i need to|i shall|i'd|we'll|we need to)\b|^(?:\w+,\s*)?(?:running|executing|checking|listing|trying|searching|reading|looking)\b`)
	addressesReader = regexp.MustCompile(`(?i)\b(?:you|your|for example|e\.g\.|such as)\b|^(?:to|use|try|run)\b`)
)

// commonCommands are programs a command line often starts with: a
// friendly first layer for commands that carry no flag or path.
var commonCommands = map[string]bool{
	"ls": true, "cat": true, "echo": true, "cd": true, "pwd": true, "grep": true, "rg": true, "find": true, "git": true,
	"go": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "node": true, "python": true, "python3": true,
	"pip": true, "pip3": true, "cargo": true, "make": true, "docker": true, "kubectl": true, "curl": true, "wget": true,
	"head": true, "tail": true, "wc": true, "sed": true, "awk": true, "mkdir": true, "touch": true, "tree": true,
	"du": true, "df": true, "free": true, "ps": true, "whoami": true, "uname": true, "env": true, "which": true,
	"lsof": true, "jq": true, "pytest": true, "uv": true, "deno": true, "bun": true, "dotnet": true, "mvn": true,
	"gradle": true, "hostname": true, "date": true, "ping": true, "nproc": true, "stat": true, "file": true,
}

// commandToken matches the program of a command line: a name, or a path
// to one.
var commandToken = regexp.MustCompile(`^(?:\.{0,2}/|~/)?[a-z0-9_][\w.+\-/]*$`)

// shellSyntax matches what only a command line has: a flag, a path, an
// operator, a quoted argument.
var shellSyntax = regexp.MustCompile(`(^|\s)--?[A-Za-z]|/|\.\w{1,6}(\s|$)|\|\|?|&&|[<>]|\$\(|;\s|"[^"]*"|'[^']*'|(^|\s)\.{1,2}(\s|$)`)

// commandLine reports whether line reads as a shell command rather than
// a sentence: it starts with a program and carries shell syntax, or is a
// short line starting with a common program, and does not end like a
// sentence.
func commandLine(line string) bool {
	line = strings.TrimSpace(line)
	if line == "" || len(line) > 400 || strings.Contains(line, "\n") {
		return false
	}
	fields := strings.Fields(line)
	prog := fields[0]
	if !commandToken.MatchString(prog) || len(fields) > 24 {
		return false
	}
	last := line[len(line)-1]
	if (last == '.' || last == '!' || last == '?' || last == ':') && len(line) > 1 && isLetter(line[len(line)-2]) {
		return false
	}
	if shellSyntax.MatchString(strings.TrimPrefix(line, prog)) {
		return true
	}
	return commonCommands[prog] && len(fields) <= 3
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
