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
	for i, a := range anchors {
		end := len(t)
		if i+1 < len(anchors) {
			end = anchors[i+1].start
		}
		region := t[a.end:end]
		c, used, ok := a.read(region, specs)
		if !ok {
			continue
		}
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
		adjacentLeft := left != 0 && strings.IndexByte(leftMarks, left) >= 0
		a.enclosed = adjacentLeft && (right == 0 || right == '\n' || strings.IndexByte(rightMarks, right) >= 0)
		a.marked = adjacentLeft || spacedMark(text, m[0])
		a.lineStart = lineStartsAt(text, m[0])
		if !a.marked && !a.lineStart {
			continue
		}
		a.strong = callMarked(text, m[0], m[1])
		a.spec = anchorTool(text[m[0]:m[1]], specs, a.strong)
		if a.spec < 0 {
			continue
		}
		if !namedAsOffered(text[m[0]:m[1]], specs) && (q.citedAt(m[0]) || !a.strong) {
			continue
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
		if i >= 0 && strings.IndexByte(":=({[,", text[i]) >= 0 && right == left {
			return true
		}
	}
	if right == '(' || right == '{' {
		return true
	}
	return right == ' ' && byteAt(text, end+1) == '{'
}

// lineStartsAt reports whether pos opens its line.
func lineStartsAt(text string, pos int) bool {
	i := strings.LastIndexByte(text[:pos], '\n') + 1
	return strings.TrimSpace(text[i:pos]) == ""
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
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range kv {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quoteJSON(p[0]))
		b.WriteByte(':')
		if raw[i] {
			b.WriteString(p[1])
		} else {
			b.WriteString(quoteJSON(p[1]))
		}
	}
	b.WriteByte('}')
	c = RepairedCall{ToolCall: ToolCall{Name: spec.Name, Arguments: json.RawMessage(b.String())}, Path: RepairLoose}
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
	if !slices.ContainsFunc(pairs, func(p pair) bool { return takesArg(specs, p.key) }) {
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
	var b strings.Builder
	b.WriteByte('{')
	seen := map[string]bool{}
	for _, p := range pairs {
		if seen[p.key] {
			continue
		}
		seen[p.key] = true
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(quoteJSON(p.key))
		b.WriteByte(':')
		if p.json {
			b.WriteString(p.value)
		} else {
			b.WriteString(quoteJSON(p.value))
		}
	}
	b.WriteByte('}')
	return RepairedCall{ToolCall: ToolCall{Arguments: json.RawMessage(b.String())}, Path: RepairLoose}, true
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
