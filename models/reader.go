package models

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The tolerant reader catches the calls the exact parsers miss. It does
// not know call formats; it knows the offered tools. It looks for their
// names (and the names other agents give them) where a call would put
// them, next to markup, and reads the argument pairs written after each
// in whatever syntax the model chose: JSON, XML-ish parameters,
// key="value", key: value, --key value, key => value. Then it decides by
// fit: a call is read only when the arguments found fit the named tool's
// schema, its required arguments among them. A name in markup whose
// arguments do not fit is a call the model meant but wrote wrong: the
// reader says so, and which tool, so that the correction can show it.
//
// Two shapes name no tool. A reply that is one command line, alone or
// after a word that names a shell or a sentence that announces it, is a
// call of the tool that runs commands. A reply that is nothing but
// argument pairs is a call of the one offered tool they fit.

// Repair paths of the tolerant reader.
const (
	RepairLoose   = "loose"   // an offered tool named in markup, its arguments read in the syntax that follows
	RepairCommand = "command" // a command line and nothing else, read as a call of the tool that runs commands
)

// looseReading is what the tolerant reader made of a reply.
type looseReading struct {
	calls []RepairedCall
	spans [][2]int
	// text is the reply as the reader saw it (typeset quotes made plain,
	// template tokens out), which the spans index.
	text string
	// meant is set when the reply names an offered tool in markup, or is
	// argument pairs, but no call fits: tool is the tool it seemed to mean
	// ("" if none fits better than another) and why says what is wrong.
	meant     bool
	tool, why string
}

// readLoose runs the tolerant reader over text.
func readLoose(text string, specs []ToolSpec) looseReading {
	t := plainText(text)
	r := looseReading{text: t}
	if len(specs) == 0 || strings.TrimSpace(t) == "" {
		return r
	}
	q := quotingOf(t)
	anchors := findAnchors(t, specs, q)
	consumed := 0
	for i, a := range anchors {
		if a.start < consumed {
			continue // a value of the call before: <shell>cat go.mod</shell>
		}
		end := len(t)
		for _, b := range anchors[i+1:] {
			if !attached(t, a, b) {
				end = b.start
				break
			}
		}
		region := t[a.end:end]
		c, used, ok := a.read(region, specs)
		if !ok {
			continue
		}
		consumed = a.end + used
		c = mend(c, specs)
		if c.Problem == "" {
			r.calls = append(r.calls, c)
			r.spans = append(r.spans, [2]int{a.from(t), closingMarkup(t, a.end+used)})
			continue
		}
		if a.strong && !q.citedAt(a.start) && !r.meant {
			r.meant, r.tool, r.why = true, specs[a.spec].Name, c.Problem
		}
	}
	if len(r.calls) > 0 || r.meant {
		return r
	}
	if c, span, ok := commandCall(t, specs, q); ok {
		r.calls, r.spans = []RepairedCall{c}, [][2]int{span}
		return r
	}
	if c, ok := pairsCall(t, q, specs); ok {
		c = mend(c, specs)
		if c.Problem == "" {
			r.calls, r.spans = []RepairedCall{c}, [][2]int{{0, len(t)}}
		} else {
			r.meant, r.tool, r.why = true, c.Name, c.Problem
		}
	}
	return r
}

// attached reports whether anchor b is only the first word of what
// anchor a's markup encloses (<shell>cat go.mod</shell>, bash(ls …)):
// a's value, not a call of its own.
func attached(text string, a, b anchor) bool {
	return strings.Trim(text[a.end:b.start], " \t>({:\"'") == "" && !b.lineStart
}

// Template tokens the reader sees through: MiniMax M3's namespace marker
// (]<]minimax[>[ before every tag), Gemma 4's string quotes (<|"|>,
// <escape>) and its thought channel.
var (
	namespaceToken = regexp.MustCompile(`\]<\][\w.\-]{1,24}\[>\[`)
	gemmaQuote     = regexp.MustCompile(`<\|"\|>|<escape>`)
	thoughtChannel = regexp.MustCompile(`(?s)<\|channel>.*?<channel\|>`)
	typesetQuotes  = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'")
)

// plainText is text as the reader reads it: template tokens that only
// wrap a call taken out, and typographic quotes made plain when they
// delimit (a call someone's editor typeset).
func plainText(text string) string {
	t := namespaceToken.ReplaceAllString(text, "")
	t = thoughtChannel.ReplaceAllString(t, "")
	t = gemmaQuote.ReplaceAllString(t, `"`)
	if strings.ContainsAny(t, "\u201c\u201d") && strings.ContainsAny(t, "{<=:") {
		t = typesetQuotes.Replace(t)
	}
	return t
}

// closingTag matches a closing tag or a template's closing token, with
// the space before it.
var closingTag = regexp.MustCompile(`^\s*(?:</[\w:.\-]{1,60}>|<\|/?[\w:.\-]{1,40}\|?>|<[\w:.\-]{1,40}\|>|\[/[A-Z_]{3,}\])`)

// closingMarkup is where a call's text ends that ends at end but for the
// tags that close it.
func closingMarkup(text string, end int) int {
	for {
		m := closingTag.FindStringIndex(text[end:])
		if m == nil {
			return end
		}
		end += m[1]
	}
}

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
	from := max(0, pos-80)
	m := keyKeyed.FindStringSubmatch(text[from:pos])
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

// from is where the call text of the anchor starts in text: the start of
// its line, unless a sentence comes first there.
func (a anchor) from(text string) int {
	i := strings.LastIndexByte(text[:a.start], '\n') + 1
	if len(proseWords.FindAllString(text[i:a.start], 3)) >= 3 {
		for j := a.start - 1; j >= i; j-- {
			if strings.IndexByte(`<[{(`, text[j]) >= 0 {
				return j
			}
		}
		return a.start
	}
	return i
}

// read reads the call the anchor names from the text after it, region:
// the argument pairs there that fit the tool, else the one value the
// markup encloses for a tool that takes one. used is how much of region
// the call spans; ok is false when nothing there is the call's.
func (a anchor) read(region string, specs []ToolSpec) (c RepairedCall, used int, ok bool) {
	spec := specs[a.spec]
	params := SchemaParams(spec.Parameters)
	pairs := readPairs(region, a.enclosed || a.lineStart)
	var kv [][2]string
	var raw []bool
	seen := map[string]bool{}
	for _, p := range pairs {
		name := paramFor(p.key, params, seen)
		if name == "" {
			continue
		}
		seen[name] = true
		kv = append(kv, [2]string{name, p.value})
		raw = append(raw, p.json)
		used = max(used, p.end)
	}
	if len(kv) == 0 {
		if !a.enclosed || !a.strong {
			return c, 0, false
		}
		p, v, end := bareValue(region, params)
		if p == "" {
			// A tool that takes nothing, named in markup: <list_dir/>.
			if len(requiredParams(params)) > 0 || end < 0 {
				return RepairedCall{ToolCall: ToolCall{Name: spec.Name}, Path: RepairLoose}, 0, true
			}
			return RepairedCall{ToolCall: ToolCall{Name: spec.Name, Arguments: json.RawMessage("{}")}, Path: RepairLoose}, end, true
		}
		kv, raw, used = [][2]string{{p, v}}, []bool{false}, end
	}
	for i := range kv {
		if !raw[i] {
			kv[i][1] = quoteJSON(kv[i][1])
		}
	}
	args := pairsObject(kv, func(v string) string { return v })
	c = RepairedCall{ToolCall: ToolCall{Name: spec.Name, Arguments: args}, Path: RepairLoose}
	return c, used, true
}

// paramFor is the parameter an argument key stands for, among those not
// yet set: the key itself, or the parameter it names another way
// (file_path for path).
func paramFor(key string, params []Param, seen map[string]bool) string {
	var free []string
	for _, p := range params {
		if !seen[p.Name] {
			free = append(free, p.Name)
		}
	}
	if slices.Contains(free, key) {
		return key
	}
	return resolveArgName(key, free)
}

func requiredParams(params []Param) []Param {
	var out []Param
	for _, p := range params {
		if p.Required {
			out = append(out, p)
		}
	}
	return out
}

// markerLine matches a line that is only a marker of an envelope:
// BEGIN_ARG:, [ARGS], END.
var markerLine = regexp.MustCompile(`(?m)^[ \t]*\[?/?[A-Z][A-Z0-9_]*\]?:?[ \t]*$`)

// markupTag matches a tag or a template token.
var markupTag = regexp.MustCompile(`<[|/]?[\w:.\-=|"' ]{0,60}\|?>|\[/?[A-Z_]{3,}\]`)

// bareValue is the one value markup encloses after a tool's name
// (<run_command>ls -la</run_command>, call:run_command:\nBEGIN_ARG:\nls
// \nEND_ARG) for a tool whose one required parameter can take it: a
// command for a command, a path for a path, a line for a query. It
// returns the parameter, the value and where the value ends in region;
// param is "" when there is none (end is then -1 when nothing at all
// follows the name).
func bareValue(region string, params []Param) (param, value string, end int) {
	req := requiredParams(params)
	stop := len(region)
	if i := strings.Index(region, "\n\n"); i >= 0 {
		stop = i
	}
	text := markupTag.ReplaceAllString(region[:stop], "\n")
	text = markerLine.ReplaceAllString(text, "")
	text = strings.Trim(text, " \t\r\n:=>\"'`{}()[];,")
	if text == "" {
		return "", "", -1
	}
	if len(req) != 1 || strings.Contains(text, "\n") || len(text) > 400 {
		return "", "", 0
	}
	p := req[0]
	switch {
	case p.Type != "" && p.Type != "string":
		return "", "", 0
	case isCommandParam(p.Name):
		if !commandLine(text) {
			return "", "", 0
		}
	case isPathParam(p.Name):
		if strings.ContainsAny(text, " \t") {
			return "", "", 0
		}
	}
	return p.Name, text, stop
}

// isCommandParam and isPathParam report what a parameter takes, by its
// name or the names models give it.
func isCommandParam(name string) bool {
	n := normalizeName(name)
	return n == "command" || slices.Contains(argAliases["command"], n)
}

func isPathParam(name string) bool {
	n := normalizeName(name)
	return n == "path" || slices.Contains(argAliases["path"], n)
}

// pairsCall reads a reply that is nothing but argument pairs (a JSON
// object, key: value lines) as a call without a name; mend infers the
// tool they fit.
func pairsCall(text string, q quoting, specs []ToolSpec) (RepairedCall, bool) {
	body := strings.TrimSpace(text)
	if m := fence.FindStringSubmatch(body); m != nil && strings.TrimSpace(fence.ReplaceAllString(body, "")) == "" && callFences[strings.ToLower(m[1])] {
		body = strings.TrimSpace(m[2])
	} else if len(q.code)+len(q.inline) > 0 {
		return RepairedCall{}, false
	}
	pairs := readPairs(body, true)
	if !slices.ContainsFunc(pairs, func(p pair) bool { return namesArg(specs, p.key) }) {
		return RepairedCall{}, false // "Done: I read it." is a sentence
	}
	// Every line must be one of the pairs: a reply with prose in it is
	// not a call.
	covered := 0
	for _, p := range pairs {
		covered += p.end - p.start
	}
	if float64(covered) < 0.7*float64(len(strings.Join(strings.Fields(body), " "))) {
		return RepairedCall{}, false
	}
	var kv [][2]string
	seen := map[string]bool{}
	for _, p := range pairs {
		if seen[p.key] {
			continue
		}
		seen[p.key] = true
		v := p.value
		if !p.json {
			v = quoteJSON(v)
		}
		kv = append(kv, [2]string{p.key, v})
	}
	return RepairedCall{ToolCall: ToolCall{Arguments: pairsObject(kv, func(v string) string { return v })}, Path: RepairLoose}, true
}

// namesArg reports whether an offered tool has a parameter named key,
// as named or by a name models give it (file_path for path): the strict
// test for argument pairs that come without a tool's name.
func namesArg(specs []ToolSpec, key string) bool {
	nk := normalizeName(key)
	for _, s := range specs {
		for _, p := range SchemaParams(s.Parameters) {
			if normalizeName(p.Name) == nk || slices.Contains(argAliases[p.Name], nk) {
				return true
			}
		}
	}
	return false
}

// takesArg reports whether an offered tool takes an argument named key,
// or named another way for it.
func takesArg(specs []ToolSpec, key string) bool {
	for _, s := range specs {
		if paramFor(key, SchemaParams(s.Parameters), map[string]bool{}) != "" {
			return true
		}
	}
	return false
}

// describeMeant says, for a correction, what was read of a call that did
// not fit.
func describeMeant(tool, why string) string {
	if tool == "" {
		return why
	}
	return fmt.Sprintf("it seems to call %s, but %s", tool, strings.TrimPrefix(why, tool+" "))
}

func isWordByte(c byte) bool { return c == '_' || c >= '0' && c <= '9' || isLetter(c) }
