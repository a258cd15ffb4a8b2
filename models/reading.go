package models

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// One principle decides what a reply is: a reply that is not plain prose
// (it holds markup, a lone command line, argument pairs, JSON or call-like
// fragments) is never silently the final answer. tern reads a call from
// it, and runs the call only when exactly one offered tool and its
// required arguments fit; else the reply is answered with a correction
// that shows the session's call format. Prose stays prose, commands and
// code in it too: an answer may show what it explains.
//
// ReadReply applies the principle, in this order: the structured calls;
// the exact parsers of the known call formats (RepairReply); the tolerant
// reader (readLoose); then the reply's shape. A reply that says it cannot
// do what its tools do is told what tools it has.

// ReplyKind is what a reply is, as ReadReply reads it.
type ReplyKind int

const (
	// ReplyAnswer is plain prose: the answer (it may still only announce
	// an action; that is the caller's to judge).
	ReplyAnswer ReplyKind = iota
	// ReplyCalls holds calls: Calls.
	ReplyCalls
	// ReplyBroken is call text that could not be read: Broken says why.
	ReplyBroken
	// ReplyNotProse is not plain prose, and no call fits it: Why says
	// what it holds.
	ReplyNotProse
	// ReplyRefusal says it cannot run, read or look up things, with tools
	// on offer that do.
	ReplyRefusal
)

// Reading is what ReadReply made of a reply.
type Reading struct {
	Recovery
	Kind ReplyKind
	// Why says, for ReplyNotProse, what the reply holds instead of prose,
	// in words for the correction.
	Why string
	// Tool is the offered tool the reply seemed to mean, for the
	// correction's example ("" when none).
	Tool string
}

// ReadReply reads an assistant reply against the tools on offer, specs.
func ReadReply(m Message, specs []ToolSpec) Reading {
	r := Reading{Recovery: RepairReply(m, specs)}
	switch {
	case len(r.Calls) > 0:
		r.Kind = ReplyCalls
		return r
	case len(specs) == 0:
		if r.Broken != "" {
			r.Kind, r.Tool = ReplyBroken, r.BrokenTool
		}
		return r
	}
	// Call text the exact parsers could not read may still be a call
	// the tolerant reader reads: it decides by fit.
	lr := readLoose(m.Content, specs)
	if len(lr.calls) > 0 {
		r.Calls, r.Kind, r.Broken, r.BrokenTool = lr.calls, ReplyCalls, "", ""
		r.Rest = tidy(dropLeftovers(cut(lr.text, lr.spans)))
		return r
	}
	if r.Broken != "" {
		r.Kind, r.Tool = ReplyBroken, r.BrokenTool
		return r
	}
	if lr.meant {
		r.Kind, r.Tool, r.Why = ReplyNotProse, lr.tool, describeMeant(lr.tool, lr.why)
		return r
	}
	if why := notProse(lr.text, specs); why != "" {
		r.Kind, r.Why = ReplyNotProse, why
		return r
	}
	if tool := refusedTool(lr.text, specs); tool != "" {
		r.Kind, r.Tool = ReplyRefusal, tool
	}
	return r
}

// cut is text without the spans.
func cut(text string, spans [][2]int) string {
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s[0] < last {
			s[0] = last
		}
		if s[0] > s[1] {
			continue
		}
		b.WriteString(text[last:s[0]])
		last = s[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// Markup that is not prose: a template's special tokens (<|tool_call|>,
// <tool_call|>, <｜tool▁sep｜>), a bracketed marker of a call
// ([TOOL_CALLS], [/TOOL_REQUEST], [ARGS]; not [DONE] or [WIP]), a tag
// opening a line (<execute_bash>, <functioncall …>) or a call written as
// a name and parentheses on a line of its own.
var (
	specialToken = regexp.MustCompile(`<\|[^<>\n]{0,40}>|<[^<>\s|]{1,40}\|>|<｜[^｜<>\n]{1,40}｜>`)
	bracketToken = regexp.MustCompile(`\[/?[A-Z_]*(?:TOOL|CALL|FUNC|ARG|REQUEST|ACTION|INVOKE|RESULT)[A-Z0-9_]*\]|\[(?i:calling tool|tool call|function call)\b`)
	lineTag      = regexp.MustCompile(`(?m)^[ \t]*</?[A-Za-z_][\w:\-]*(?:[ =][^<>\n]*)?/?>`)
	lineCall     = regexp.MustCompile(`(?m)^[ \t]*[A-Za-z_][\w.\-]*\([^()\n]*\)[ \t]*$`)
)

// bracketMarker reports whether text holds a bracketed marker that is
// not a link's text ([CHANGELOG](CHANGELOG.md)).
func bracketMarker(text string) bool {
	for _, m := range bracketToken.FindAllStringIndex(text, -1) {
		if byteAt(text, m[1]) != '(' {
			return true
		}
	}
	return false
}

// notProse says why text is not plain prose ("" when it is): markup, a
// command line, JSON, or argument pairs, outside what it quotes as code.
// Prose around such text makes it an answer that shows it; the text
// alone, or nearly, is a call that went wrong.
func notProse(text string, specs []ToolSpec) string {
	q := quotingOf(text)
	bare := proseOnly(text, q)
	plain := strings.TrimSpace(bare)
	if plain == "" {
		return ""
	}
	sentences := len(proseSentence.FindAllString(stripMarkup(plain), -1))
	switch {
	case specialToken.MatchString(plain) || bracketMarker(plain):
		if sentences <= 2 {
			return "it holds a template's call markup but no call in a format that can be read"
		}
	case lineTag.MatchString(plain) && sentences == 0:
		return "it is markup, not a call in a format that can be read"
	case lineCall.MatchString(plain) && sentences == 0:
		return "it looks like a call, but names no tool on offer with arguments that fit"
	}
	body := plain
	if m := fence.FindStringSubmatch(strings.TrimSpace(text)); m != nil && strings.TrimSpace(fence.ReplaceAllString(strings.TrimSpace(text), "")) == "" {
		body = strings.TrimSpace(m[2])
	}
	if (strings.HasPrefix(body, "{") && strings.HasSuffix(body, "}")) || (strings.HasPrefix(body, "[{") && strings.HasSuffix(body, "]")) {
		if json.Valid([]byte(body)) || sentences == 0 {
			return "it is JSON, not a call: no tool on offer takes these arguments"
		}
	}
	if commandLine(plain) && !strings.Contains(plain, "\n") {
		return "it is a command line, but no tool that runs commands is on offer"
	}
	if sentences == 0 && langLead.MatchString(plain) {
		if tool, _ := commandTool(specs); tool != "" {
			return "it is code, not a call: to run code, call " + tool
		}
		return "it is code, not a call"
	}
	if sentences == 0 && pairLines(plain, specs) {
		return "it is a list of arguments, but they fit no one tool on offer"
	}
	return ""
}

// langLead matches text that opens with a language's name on a line of
// its own, then code: a fence whose backticks went missing.
var langLead = regexp.MustCompile(`(?i)^(?:python3?|py|javascript|js|typescript|ts|bash|sh|shell|zsh|json|go|golang|ruby|rb|php|sql|powershell|cmd|rust|java|c|cpp)[ \t]*\n[ \t]*\S`)

// proseSentence matches a sentence: three or more words, ending or not.
var proseSentence = regexp.MustCompile(`\p{L}{2,}[^\n.!?]*?\s\p{L}{2,}[^\n.!?]*?\s\p{L}{2,}`)

// stripMarkup takes tags and template tokens out of text.
func stripMarkup(text string) string {
	text = specialToken.ReplaceAllString(text, " ")
	return markupTag.ReplaceAllString(regexp.MustCompile(`<[^<>\n]{1,80}>`).ReplaceAllString(text, " "), " ")
}

// proseOnly is text without what it quotes as code.
func proseOnly(text string, q quoting) string {
	var spans [][2]int
	spans = append(spans, q.code...)
	spans = append(spans, q.inline...)
	spans = append(spans, q.cited...)
	return cut(text, spans)
}

// pairLines reports whether text is lines of argument pairs, one of
// them at least an argument of an offered tool.
func pairLines(text string, specs []ToolSpec) bool {
	lines := strings.Split(text, "\n")
	if len(lines) < 1 {
		return false
	}
	pairs := readPairs(text, true)
	if len(pairs) < len(lines)/2+1 {
		return false
	}
	return slices.ContainsFunc(pairs, func(p pair) bool { return namesArg(specs, p.key) })
}

// refusal matches a reply saying, in the first person, that it cannot
// run, read or look up things: what its tools are for. The last group is
// what it says it cannot do.
var refusal = regexp.MustCompile(`(?i)\b(?:i|i'm|i am|as an ai,? i)\b[^.!?\n]{0,40}?\b(?:can't|cannot|can not|am unable to|'m unable to|am not able to|'m not able to|unable to|don't have|do not have|have no|lack)\b[^.!?\n]{0,60}?\b((?:run|execute|perform|access|read|open|view|see|check|list|browse|search|look up|fetch|write|edit|create|modify|call|use|interact)\b|capabilit|tools?\b|ability|permission)`)

// refusalKinds map what a refusal says it cannot do to the offered tools
// that do it, by their names or their parameters.
var refusalKinds = []struct {
	verbs, names, params *regexp.Regexp
}{
	{regexp.MustCompile(`(?i)^(run|execute|perform)$`), regexp.MustCompile(`(?i)run|exec|shell|bash|terminal|command|cmd`), regexp.MustCompile(`(?i)^(command|cmd)$`)},
	{regexp.MustCompile(`(?i)^(access|read|open|view|see|check|list)$`), regexp.MustCompile(`(?i)read|view|open|cat|list|dir|ls|file|glob|grep|find`), regexp.MustCompile(`(?i)path|file`)},
	{regexp.MustCompile(`(?i)^(browse|fetch)$`), regexp.MustCompile(`(?i)web|fetch|browse|url|http|internet|online`), regexp.MustCompile(`(?i)^(url|uri)$`)},
	{regexp.MustCompile(`(?i)^(search|look up)$`), regexp.MustCompile(`(?i)search|grep|find|glob|lookup|web`), regexp.MustCompile(`(?i)^(query|q|pattern)$`)},
	{regexp.MustCompile(`(?i)^(write|edit|create|modify)$`), regexp.MustCompile(`(?i)write|edit|create|patch|replace|apply|save`), regexp.MustCompile(`(?i)^(content|contents|new_string|patch)$`)},
}

// refusedTool is the offered tool that does what text, near its start,
// says it cannot do ("" when text refuses nothing, or nothing offered
// does it): "I can't run commands" with a tool that runs them.
func refusedTool(text string, specs []ToolSpec) string {
	text = typesetQuotes.Replace(text)
	if len(text) > 600 {
		text = text[:600]
	}
	m := refusal.FindStringSubmatch(text)
	if m == nil || len(specs) == 0 {
		return ""
	}
	for _, k := range refusalKinds {
		if !k.verbs.MatchString(m[1]) {
			continue
		}
		for _, s := range specs {
			if k.names.MatchString(s.Name) || slices.ContainsFunc(SchemaParams(s.Parameters), func(p Param) bool { return k.params.MatchString(p.Name) }) {
				return s.Name
			}
		}
		return ""
	}
	return specs[0].Name // tools, capabilities: any tool on offer does
}
