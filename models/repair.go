package models

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Repair paths: where a tool call was found in what the model produced.
const (
	RepairNative      = "native"       // the structured tool_calls field
	RepairTagged      = "tagged"       // <tool_call>{…}</tool_call>, <|tool_call|>[…], <function_call>…
	RepairFenced      = "fenced"       // a ```json (or ```tool) fenced block
	RepairBare        = "bare"         // a bare {"name":…, "arguments":…} object in the text
	RepairMistral     = "mistral"      // [TOOL_CALLS][…] or [TOOL_CALLS]name[ARGS]{…}
	RepairPythonTag   = "python_tag"   // <|python_tag|>{…} (Llama 3.x)
	RepairFunctionTag = "function_tag" // <function=name>{…}</function> or <parameter=…> tags
	RepairPythonic    = "pythonic"     // read_file(path="a.go"), in ```tool_code, as the whole reply or in prose
	RepairEnvelope    = "envelope"     // a name in special tokens, then JSON (DeepSeek, Kimi, gpt-oss harmony)
	RepairCLI         = "cli"          // read_file path="a.go", written like a command line
	RepairXML         = "xml"          // <read_file><path>a.go</path></read_file>, as Cline writes calls
)

// Fixes: how a recovered call was mended. A call's Repair label is its path
// followed by its fixes, joined by "+" ("bare+json+name").
const (
	FixJSON       = "json"       // broken JSON syntax repaired
	FixAlias      = "alias"      // args, parameters, input … instead of arguments
	FixString     = "string"     // arguments sent as a JSON string
	FixFlat       = "flat"       // arguments written next to the name, not inside arguments
	FixPositional = "positional" // arguments given by position, mapped to the schema's order
	FixName       = "name"       // the tool name corrected (case, prefix, spelling)
	FixCoerce     = "coerce"     // argument types coerced or unknown arguments dropped
	FixArgName    = "argname"    // argument names corrected (file_path for path, cmd for command)
	FixInferred   = "inferred"   // no name given; the tool inferred from the argument names
)

// RepairedCall is one tool call as the repair pipeline recovered it.
type RepairedCall struct {
	ToolCall
	// Path is where the call was found (RepairNative, RepairTagged, …).
	Path string
	// Fixes lists what had to be mended, in the order it was.
	Fixes []string
	// Notes are for the model, prepended to the call's result ("ignored
	// unknown argument \"color\"").
	Notes []string
	// Problem, when not empty, says why the call cannot run, in words the
	// model can act on, with one valid example. The call must not run; the
	// problem is its result.
	Problem string
	// UnknownTool says the Problem is that no tool on offer has the name:
	// a caller that knows tools not on offer (locked ones) may answer the
	// call itself.
	UnknownTool bool
}

// Repair is the call's label for metrics: its path, then its fixes.
func (c RepairedCall) Repair() string {
	return strings.Join(append([]string{c.Path}, c.Fixes...), "+")
}

// Recovery is what the repair pipeline made of one assistant reply.
type Recovery struct {
	Calls []RepairedCall
	// Rest is the reply's text with the call text taken out: what the user
	// may be shown as the answer.
	Rest string
	// Broken, when not empty, says what was wrong with text that was meant
	// as a tool call but could not be read ("the JSON after <tool_call> is
	// cut off"). The text is not in Rest either.
	Broken string
	// BrokenTool is the tool the broken call seems to name, when it can be
	// made out (for a fitting example in the correction).
	BrokenTool string
}

// RepairReply recovers the tool calls of an assistant reply, in this order:
// the structured tool_calls field; else calls written in the text (tags,
// [TOOL_CALLS], <|python_tag|>, <function=…>, fenced and bare JSON, Python
// call syntax), with broken JSON repaired and argument aliases and
// stringified arguments undone. Every call's name is then matched to one of
// specs (case, prefixes, separators, small misspellings), and its arguments
// checked against the schema, coerced where safe. specs are the tools on
// offer; with none, names and arguments are taken as written.
func RepairReply(m Message, specs []ToolSpec) Recovery {
	if len(m.ToolCalls) > 0 {
		rec := Recovery{Rest: m.Content}
		for _, c := range m.ToolCalls {
			rc := RepairedCall{ToolCall: c, Path: RepairNative}
			if len(c.Arguments) > 0 && c.Arguments[0] == '"' {
				args, fixes := argsValue(c.Arguments)
				rc.Arguments, rc.Fixes = args, fixes
			}
			rec.Calls = append(rec.Calls, mend(rc, specs))
		}
		return rec
	}
	return recoverText(m.Content, specs)
}

// ExtractToolCalls recovers tool calls a model wrote as text instead of in
// the structured field, without checking them against any tool. It returns
// the calls, the text with the calls taken out, and the path of the first
// call ("" when there is none).
func ExtractToolCalls(text string) (calls []ToolCall, rest, how string) {
	rec := recoverText(text, nil)
	for _, c := range rec.Calls {
		calls = append(calls, c.ToolCall)
	}
	if len(calls) == 0 {
		return nil, text, ""
	}
	return calls, rec.Rest, rec.Calls[0].Path
}

// span is a stretch of the reply that held call text.
type span struct {
	start, end int
	path       string
	calls      []rawCall
	// broken says why call text in the span could not be read.
	broken, brokenTool string
	// weak spans hold only text that might not be meant as a call (bare or
	// fenced JSON, Python syntax): their calls count only if they name a
	// tool on offer or say "arguments" outright.
	weak bool
}

// recoverText runs the text scanners, strongest markers first, each over
// what the earlier ones left, and mends what they found.
func recoverText(text string, specs []ToolSpec) Recovery {
	var spans []span
	taken := func(start, end int) bool {
		for _, s := range spans {
			if start < s.end && end > s.start {
				return true
			}
		}
		return false
	}
	for _, scan := range scanners {
		for _, s := range scan(text, taken) {
			if !taken(s.start, s.end) {
				spans = append(spans, s)
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	q := quotingOf(text)

	var rec Recovery
	var rest strings.Builder
	last := 0
	for _, s := range spans {
		if q.example(s.start) {
			continue // call text shown in code or mentioned in a sentence
		}
		cited := q.citedAt(s.start)
		var calls []RepairedCall
		var nameless []string
		for _, rc := range s.calls {
			c := mend(RepairedCall{ToolCall: rc.call, Path: s.path, Fixes: rc.fixes}, specs)
			if s.weak && !rc.explicit && len(specs) > 0 && c.UnknownTool {
				continue // JSON that merely has a "name", not a call
			}
			if cited && len(specs) > 0 && (c.Problem != "" || !namedAsOffered(rc.call.Name, specs)) {
				continue // a call quoted in an answer, not one made
			}
			if c.Name == "" {
				// Arguments without a name, fitting no one tool.
				nameless = append(nameless, c.Problem)
				continue
			}
			if rc.truncated && (c.Problem == "" || !c.UnknownTool) {
				c.Problem = truncatedProblem(c.Name)
			}
			calls = append(calls, c)
		}
		if cited && len(calls) == 0 {
			continue
		}
		if len(calls) == 0 && s.broken == "" && len(nameless) > 0 {
			s.broken = "the text after the tool call tag could not be read as a call: " + nameless[0]
		}
		if len(calls) == 0 && s.broken == "" {
			continue // the span's text stays in the answer
		}
		rest.WriteString(text[last:s.start])
		last = s.end
		rec.Calls = append(rec.Calls, calls...)
		if s.broken != "" && rec.Broken == "" {
			rec.Broken, rec.BrokenTool = s.broken, s.brokenTool
		}
	}
	rest.WriteString(text[last:])
	rec.Rest = rest.String()
	if len(spans) > 0 && (len(rec.Calls) > 0 || rec.Broken != "") {
		rec.Rest = dropLeftovers(rec.Rest)
	}
	rec.Rest = tidy(rec.Rest)
	return rec
}

var blankLines = regexp.MustCompile(`\n{3,}`)

// tidy trims what is left of a reply once calls are taken out.
func tidy(s string) string {
	return blankLines.ReplaceAllString(strings.TrimSpace(s), "\n\n")
}

// ToolNames returns the names of specs, in order.
func ToolNames(specs []ToolSpec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// mend matches the call's name to a tool on offer and checks its arguments
// against that tool's schema. Without specs the call is left as it is.
func mend(c RepairedCall, specs []ToolSpec) RepairedCall {
	if len(c.Arguments) == 0 {
		c.Arguments = []byte("{}")
	}
	if len(specs) == 0 {
		if c.Name == "" {
			c.Problem = "it names no tool"
		}
		return c
	}
	if c.Name == "" {
		name, fits := inferTool(c.Arguments, specs)
		if name == "" {
			c.Problem = "it names no tool"
			if len(fits) > 1 {
				c.Problem += fmt.Sprintf(" (its arguments fit %s; say which)", strings.Join(fits, " and "))
			}
			return c
		}
		c.Name = name
		c.Fixes = append(c.Fixes, FixInferred)
	}
	name := ResolveToolName(c.Name, ToolNames(specs))
	if name == "" {
		name = aliasTool(c.Name, c.Arguments, specs)
	}
	if name == "" {
		c.Problem = fmt.Sprintf("unknown tool %q. Available tools: %s.", c.Name, strings.Join(ToolNames(specs), ", "))
		c.UnknownTool = true
		return c
	}
	if name != c.Name {
		c.Name = name
		c.Fixes = append(c.Fixes, FixName)
	}
	spec := specs[slices.IndexFunc(specs, func(s ToolSpec) bool { return s.Name == name })]
	if args, ok := positional(spec, c.Arguments); ok {
		c.Arguments = args
		c.Fixes = append(c.Fixes, FixPositional)
	}
	if args, ok := renameArgs(spec, c.Arguments); ok {
		c.Arguments = args
		c.Fixes = append(c.Fixes, FixArgName)
	}
	fixed, notes, err := CheckArgs(spec, c.Arguments)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	if string(fixed) != string(c.Arguments) {
		c.Arguments = fixed
		c.Fixes = append(c.Fixes, FixCoerce)
	}
	c.Notes = notes
	if k, v := placeholderArg(spec, c.Arguments); k != "" {
		c.Problem = fmt.Sprintf("argument %q of %s is a placeholder (%q), not a real value, so it was not run. Call it again with the real value, like %s",
			k, spec.Name, v, example(spec))
	} else if k := cutArg(c.Arguments); k != "" {
		c.Problem = fmt.Sprintf("argument %q of %s ends mid-way (%s), as if the reply was cut off, so it was not run. %s", k, spec.Name, tail(c.Arguments, k), "Send the call again, complete")
	}
	return c
}

// tail is the last few characters of a string argument, for corrections.
func tail(args json.RawMessage, key string) string {
	_, obj, _ := orderedObject(args)
	var s string
	_ = json.Unmarshal(obj[key], &s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 24 {
		s = "…" + string(r[len(r)-24:])
	}
	return strconv.Quote(s)
}

// namedAsOffered reports whether name is an offered tool's, as it is
// named: its case, separators and namespace aside, but not a near miss or
// another agent's name for it.
func namedAsOffered(name string, specs []ToolSpec) bool {
	n := strings.ReplaceAll(normalizeName(name), "_", "")
	for _, s := range specs {
		if strings.ReplaceAll(normalizeName(s.Name), "_", "") == n {
			return true
		}
	}
	return false
}
