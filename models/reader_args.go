package models

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

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
