package agent

import (
	"regexp"
	"strings"
)

// callFilter sits between the model's streamed text and the user. Small
// models often write tool calls as text; the user must not see those as an
// answer. The filter passes text through as it comes until something that
// may start a call appears, then holds everything from there to the end of
// the reply, when the agent knows what was a call and releases the rest.
type callFilter struct {
	held      strings.Builder
	holding   bool
	lineStart bool
	// tool reports whether a tag's name stands for an offered tool
	// (<read_file>, <bash>): the tolerant reader reads such markup as a
	// call, so it is held too. Nil holds only the call tags.
	tool func(name string) bool
	// pending is text that may still turn out to start a call: a prefix of
	// a call tag, or a line that starts with "{" or "```".
	pending string
}

// callTags start a tool call wherever they appear.
var callTags = []string{"<tool_call>", "<|tool_call|>", "<function_call>", "<tool_calls>", "<|python_tag|>", "[TOOL_CALLS]", "<function=",
	"<|tool_call_start|>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|channel|>", "<|start|>", "<tools>"}

// callLine matches the start of a line that opens a call: JSON, bare (in
// any quotes), in a list or fenced; a tool_code fence; a list of Python
// calls.
var callLine = regexp.MustCompile("^\\s*(\\[?\\s*\\{\\s*[\"']?(name|function|type|tool|tool_name|action|tool_calls|arguments|parameters|args)[\"']?\\s*:|```(json|tool|tool_call|tool_code)?\\s*\\n\\s*\\{|```tool_code\\s*\\n|\\[[A-Za-z_][\\w.]*\\()")

func newCallFilter() *callFilter { return &callFilter{lineStart: true} }

// toolTag matches the start of a tag and its name.
var toolTag = regexp.MustCompile(`^<([A-Za-z_][\w.\-]*)([\s>/]|$)`)

// namesTool reports whether s starts with a tag that names an offered
// tool; more says the name may not be complete yet.
func (f *callFilter) namesTool(s string) (yes, more bool) {
	if f.tool == nil {
		return false, false
	}
	m := toolTag.FindStringSubmatch(s)
	if m == nil {
		return false, false
	}
	if m[2] == "" {
		return false, len(s) < 40 // <read_fi…: wait for the rest
	}
	return f.tool(m[1]), false
}

// Write takes streamed text and returns what may be shown now.
func (f *callFilter) Write(s string) string {
	if f.holding {
		f.held.WriteString(s)
		return ""
	}
	text := f.pending + s
	f.pending = ""
	var out strings.Builder
	for len(text) > 0 {
		if f.lineStart {
			trimmed := strings.TrimLeft(text, " \t")
			if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "`") || strings.HasPrefix(trimmed, "[") {
				line, rest, complete := lineOrMore(text)
				undecided := !complete && len(line) < 64
				if complete && isCallFence(line) && strings.TrimSpace(rest) == "" {
					undecided = true // the fence's first line decides
				}
				if undecided {
					f.pending = text // wait for more before deciding
					return out.String()
				}
				if callLine.MatchString(line + rest[:min(len(rest), 64)]) {
					f.hold(text)
					return out.String()
				}
			}
		}
		if i := tagStart(text); i >= 0 {
			out.WriteString(text[:i])
			rest := text[i:]
			named, more := f.namesTool(rest)
			if isTag(rest) || named {
				f.hold(rest)
				return out.String()
			}
			if isTagPrefix(rest) || more {
				f.pending = rest
				return out.String()
			}
			out.WriteString(rest[:1])
			f.lineStart = false
			text = rest[1:]
			continue
		}
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			out.WriteString(text)
			f.lineStart = false
			break
		}
		out.WriteString(text[:nl+1])
		f.lineStart = true
		text = text[nl+1:]
	}
	return out.String()
}

func (f *callFilter) hold(s string) {
	f.holding = true
	f.held.WriteString(s)
}

// Held returns the text held back (and anything still pending).
func (f *callFilter) Held() string { return f.held.String() + f.pending }

// isCallFence reports whether line opens a fence a call may be written in.
func isCallFence(line string) bool {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "```") {
		return false
	}
	switch strings.TrimPrefix(line, "```") {
	case "", "json", "tool", "tool_call", "tool_code":
		return true
	}
	return false
}

// lineOrMore returns the first line of text (without its newline), what
// follows, and whether the line is complete.
func lineOrMore(text string) (line, rest string, complete bool) {
	i := strings.IndexByte(text, '\n')
	if i < 0 {
		return text, "", false
	}
	return text[:i+1], text[i+1:], true
}

// tagStart returns the index of the first '<' or '[' in text, or -1.
func tagStart(text string) int { return strings.IndexAny(text, "<[") }

func isTag(s string) bool {
	for _, t := range callTags {
		if strings.HasPrefix(s, t) {
			return true
		}
	}
	return false
}

func isTagPrefix(s string) bool {
	for _, t := range callTags {
		if len(s) < len(t) && strings.HasPrefix(t, s) {
			return true
		}
	}
	return false
}
