package models

import (
	"regexp"
	"slices"
	"strings"
)

// anchor is an offered tool's name written where a call would put it.
type anchor struct {
	start, end int
	spec       int
	// enclosed: markup on both sides (<read_file>, name="read_file",
	// call:read_file{, "read_file"), the surest sign of a call.
	enclosed bool
	// marked: markup at its left (directly, or before one space, as in
	// "tool: read_file"); pairs may then follow in any markup syntax.
	marked bool
	// lineStart: the name opens its line (read_file path=main.go).
	lineStart bool
	// strong: markup that only a call puts there (<grep>, name="grep",
	// "name": "grep", grep( or grep {): enough to say the model meant a
	// call, and to take another agent's name for the tool.
	strong bool
}

// toolToken matches a name a model may give a tool: functions.read_file,
// read-file, readFile.
var toolToken = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:[.\-][A-Za-z0-9_]+)*`)

// leftMarks and rightMarks are the markup around a name in a call.
const (
	leftMarks  = `<=:"'[({>,|/`
	rightMarks = `>"'(){}[]:,|<`
)

// findAnchors finds the offered tools named in markup in text, outside
// what the reply only quotes.
func findAnchors(text string, specs []ToolSpec, q quoting) []anchor {
	var out []anchor
	for _, m := range toolToken.FindAllStringIndex(text, -1) {
		if q.example(m[0]) {
			continue
		}
		a := anchor{start: m[0], end: m[1], spec: -1}
		left, right := byteBefore(text, m[0]), byteAt(text, m[1])
		if left == '/' && byteBefore(text, m[0]-1) == '<' {
			continue // </read_file> closes a call; it opens none
		}
		name := text[m[0]:m[1]]
		adjacentLeft := left != 0 && strings.IndexByte(leftMarks, left) >= 0
		keyed := namedByKey(text, m[0])
		a.enclosed = adjacentLeft && (right == 0 || right == '\n' || strings.IndexByte(rightMarks, right) >= 0)
		a.marked = adjacentLeft || keyed || spacedMark(text, m[0]) || openedBy(text, m[0]) || namespaced(name)
		a.lineStart = lineStartsAt(text, m[0])
		if !a.marked && !a.lineStart {
			continue
		}
		if argumentValue(text, m[0], specs) {
			continue // "command": "ls" is ls to run, not list_dir
		}
		a.strong = callMarked(text, m[0], m[1]) || keyed || namespaced(name)
		a.spec = anchorTool(name, specs, a.strong)
		if a.spec < 0 {
			continue
		}
		if !namedAsOffered(name, specs) {
			// Another agent's name for the tool counts in markup only a
			// call puts there; a plain word (open, cat, run) only where a
			// call puts its name: open( is code, <open> and "name":
			// "open" are calls.
			if q.citedAt(m[0]) || !a.strong || plainWord(name) && !(left == '<' || keyed || openedBy(text, m[0]) || namespaced(name)) {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func byteBefore(s string, i int) byte {
	if i <= 0 {
		return 0
	}
	return s[i-1]
}

func byteAt(s string, i int) byte {
	if i >= len(s) {
		return 0
	}
	return s[i]
}

// spacedMark reports whether markup stands one space before pos: "tool:
// read_file", "tool => read_file".
func spacedMark(text string, pos int) bool {
	return pos >= 2 && text[pos-1] == ' ' && strings.IndexByte(`:=>,`, text[pos-2]) >= 0
}

// openerWord matches a bracket or a tag opened by one word, before a
// name: [CALL grep …], [tool_call: grep …], <call grep …>, <tool_call> grep.
var openerWord = regexp.MustCompile(`[\[<][A-Za-z_][\w\-]{0,20}:?>?[ \t]+$`)

// openedBy reports whether pos follows a bracket or a tag opened by a
// word.
func openedBy(text string, pos int) bool {
	return openerWord.MatchString(text[max(0, pos-24):pos])
}

// callMarked reports whether the name at text[start:end] sits in markup
// only a call puts there: in a tag or after name= (<grep, >grep<,
// =grep), quoted as a value ("name": "grep", name='grep'), or before its
// arguments (grep(, grep {).
func callMarked(text string, start, end int) bool {
	left, right := byteBefore(text, start), byteAt(text, end)
	switch {
	case strings.IndexByte("<>=|", left) >= 0:
		return true
	case left == ':' && start >= 2 && isWordByte(text[start-2]) && (right == 0 || strings.IndexByte(":{(\n", right) >= 0):
		return true // call:read_file{, functions:grep:
	case left == '"' || left == '\'':
		i := start - 2
		for i >= 0 && (text[i] == ' ' || text[i] == '\t') {
			i--
		}
		if i < 0 || strings.IndexByte(":=({[,", text[i]) < 0 || right != left {
			break
		}
		// A quoted key names a tool only when its value is an object:
		// {"read_file": {"path": …}}, not {"command": "ls"}.
		after := strings.TrimLeft(text[end+1:], " \t")
		if strings.HasPrefix(after, ":") {
			return strings.HasPrefix(strings.TrimLeft(after[1:], " \t\n"), "{")
		}
		return true
	}
	if right == '(' || right == '{' || openedBy(text, start) {
		return true
	}
	return right == ' ' && byteAt(text, end+1) == '{'
}

// toolKeys are the keys whose value names the tool of a call, separators
// aside: nameKeys and the words of markup (to=, call:, <invoke>).
var toolKeys = map[string]bool{"name": true, "tool": true, "toolname": true, "function": true, "functionname": true,
	"action": true, "recipient": true, "recipientname": true, "to": true, "call": true, "toolcall": true, "invoke": true, "use": true}

// namedByKey reports whether the word at pos is the value of a key that
// names a call's tool: "name": "grep", tool: grep, to=grep, --tool grep.
func namedByKey(text string, pos int) bool {
	k := strings.ReplaceAll(normalizeName(keyBefore(text, pos)), "_", "")
	return k != "" && toolKeys[k] && k != "use" && k != "action" && k != "call"
}

// namespaced reports whether a name carries a tool namespace
// (functions.grep, default_api.read_file): call syntax, never prose.
func namespaced(name string) bool {
	ns, _, ok := strings.Cut(name, ".")
	return ok && callNamespaces[strings.ToLower(ns)]
}

var callNamespaces = map[string]bool{"functions": true, "function": true, "tools": true, "tool": true, "default_api": true, "api": true, "mcp": true}

// plainWord reports whether a name is an ordinary word (open, cat, run):
// lower-case letters only.
func plainWord(name string) bool {
	for _, c := range name {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// argumentValue reports whether the word at pos is the value of an
// argument an offered tool takes ("command": "ls", path=cat,
// <pattern>grep</pattern>): an argument, never a tool's name.
func argumentValue(text string, pos int, specs []ToolSpec) bool {
	key := keyBefore(text, pos)
	if key == "" || toolKeys[strings.ReplaceAll(normalizeName(key), "_", "")] {
		return false
	}
	return takesArg(specs, key)
}

// keyKeyed matches, at the end of the text before a value, the key it is
// the value of: "key": ", key=, key: or <key>.
var keyKeyed = regexp.MustCompile(`(?:["']?([A-Za-z_][\w\-]*)["']?\s*[:=]\s*["']?|<([A-Za-z_][\w\-]*)(?:\s[^<>]*)?>\s*|--([A-Za-z_][\w\-]*)[ =]["']?)$`)

// keyBefore is the key whose value starts at pos, or "".
func keyBefore(text string, pos int) string {
	before := text[max(0, pos-80):pos]
	// Most words follow none of keyKeyed's endings; the end-anchored
	// regexp would try every start position to learn that.
	end := strings.TrimRight(before, " \t\n\f\r\"'")
	if end == "" || strings.IndexByte(":=>", end[len(end)-1]) < 0 && !strings.Contains(before, "--") {
		return ""
	}
	m := keyKeyed.FindStringSubmatch(before)
	if m == nil {
		return ""
	}
	return m[1] + m[2] + m[3]
}

// lineStartsAt reports whether pos opens its line.
func lineStartsAt(text string, pos int) bool {
	i := strings.LastIndexByte(text[:pos], '\n') + 1
	return strings.TrimSpace(text[i:pos]) == ""
}

// NamesTool reports whether name, written as a tag's name (<read_file>,
// <bash>), stands for an offered tool: as the tolerant reader would take
// it. The agent holds back streamed text from such a tag on.
func NamesTool(name string, specs []ToolSpec) bool {
	return anchorTool(name, specs, true) >= 0
}

// anchorTool resolves a name to an offered tool: as named (case,
// separators, namespace aside), by another agent's name for it, or, in
// markup on both sides, by a small misspelling. It returns -1 for none.
func anchorTool(name string, specs []ToolSpec, enclosed bool) int {
	names := ToolNames(specs)
	n := strings.ReplaceAll(normalizeName(name), "_", "")
	if n == "" {
		return -1
	}
	for i, s := range names {
		if strings.ReplaceAll(normalizeName(s), "_", "") == n {
			return i
		}
	}
	if i := aliasedTool(name, specs); i >= 0 {
		return i
	}
	if enclosed && len(n) >= 6 {
		if r := ResolveToolName(name, names); r != "" {
			return slices.Index(names, r)
		}
	}
	return -1
}
