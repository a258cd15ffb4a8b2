package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Constrained replies: in the constrained tool mode the reply must match a
// JSON schema that Ollama enforces with a grammar while it samples (the
// request's format). The schema admits exactly two shapes:
//
//	{"name": "read_file", "arguments": {"path": "main.go"}}   one call
//	{"answer": "The config is parsed in config.go."}          the final answer
//
// The call shape is the one most models were trained on, with the name
// first so that the arguments' schema follows from it; a malformed call, an
// unknown tool or a missing required argument cannot be sampled at all.

// RepairConstrained is the repair path of a call read from a constrained
// reply.
const RepairConstrained = "constrained"

// ConstrainedLimits bound the strings of a constrained reply, so that the
// grammar closes every string, and so the whole reply, within the reply's
// token budget: a reply cut at the limit is not JSON, and noise (or a
// model that rambles) would otherwise never close a string. A string
// argument that reaches its bound may have been cut short by it, so such a
// call is answered with a correction instead of run.
type ConstrainedLimits struct {
	// Answer is the most characters the answer may hold.
	Answer int
	// Args are the most characters of each string argument, by tool and
	// parameter.
	Args map[string]map[string]int
}

// shortParams name arguments that hold a name, not a text: they get a
// small share of the budget, and the texts the rest.
var shortParams = map[string]bool{"path": true, "pattern": true, "query": true, "url": true, "glob": true,
	"dir": true, "directory": true, "name": true, "file": true, "filename": true, "tier": true, "tool": true}

// shortLimit is the most characters of a short argument.
const shortLimit = 256

// ConstrainedLimitsFor shares a reply budget of replyTokens tokens among
// the strings of each tool's call. A token is at least one character, so
// strings bounded by three quarters of the budget in all close before it
// is spent; the last quarter is left for the JSON around them.
func ConstrainedLimitsFor(specs []ToolSpec, replyTokens int) ConstrainedLimits {
	budget := max(replyTokens*3/4, 64)
	l := ConstrainedLimits{Answer: budget, Args: map[string]map[string]int{}}
	for _, s := range specs {
		var short, long []string
		for _, p := range SchemaParams(s.Parameters) {
			if p.Type != "string" && p.Type != "array" && p.Type != "" || len(p.Enum) > 0 {
				continue
			}
			if shortParams[p.Name] {
				short = append(short, p.Name)
			} else {
				long = append(long, p.Name)
			}
		}
		caps := map[string]int{}
		n := len(short) + len(long)
		if n == 0 {
			continue
		}
		each := budget / n
		rest := budget
		for _, p := range short {
			caps[p] = max(min(shortLimit, each), 16)
			rest -= caps[p]
		}
		for _, p := range long {
			caps[p] = max(rest/len(long), 16)
		}
		l.Args[s.Name] = caps
	}
	return l
}

// arrayItems is the most items of an array argument in a constrained
// reply; its budget is shared among them.
const arrayItems = 8

// ConstrainedSchema is the JSON schema of a constrained reply for specs:
// anyOf one object per tool ({"name": const, "arguments": the tool's
// parameters}) and the answer object, with strings bounded by limits (none
// when limits are zero). The tools' parameters are rewritten to the
// keywords every grammar converter knows (type, properties, required,
// enum, items, maxLength, maxItems), so that an MCP tool's exotic schema
// cannot make the request fail.
func ConstrainedSchema(specs []ToolSpec, limits ConstrainedLimits) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"anyOf":[`)
	for _, s := range specs {
		b.WriteString(`{"type":"object","properties":{"name":{"const":`)
		writeJSON(&b, s.Name)
		b.WriteString(`},"arguments":`)
		b.Write(plainSchema(s.Parameters, limits.Args[s.Name]))
		b.WriteString(`},"required":["name","arguments"]},`)
	}
	b.WriteString(`{"type":"object","properties":{"answer":{"type":"string"`)
	if limits.Answer > 0 {
		fmt.Fprintf(&b, `,"maxLength":%d`, limits.Answer)
	}
	b.WriteString(`}},"required":["answer"]}]}`)
	return b.Bytes()
}

// plainSchema rewrites a tool's parameters with the keywords a grammar
// converter surely knows: each top-level property's type (with enum and
// array item type), its bound from caps, and which are required.
func plainSchema(params json.RawMessage, caps map[string]int) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range SchemaParams(params) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(&b, p.Name)
		b.WriteByte(':')
		limit := caps[p.Name]
		switch {
		case len(p.Enum) > 0:
			b.WriteString(`{"type":"string","enum":`)
			writeJSON(&b, p.Enum)
			b.WriteByte('}')
		case p.Type == "array":
			items := p.Items
			if items == "" || items == "object" || items == "array" {
				items = "string"
			}
			b.WriteString(`{"type":"array","items":{"type":`)
			writeJSON(&b, items)
			if limit > 0 && items == "string" {
				fmt.Fprintf(&b, `,"maxLength":%d}`, max(limit/arrayItems, 8))
				fmt.Fprintf(&b, `,"maxItems":%d}`, arrayItems)
			} else {
				b.WriteString(`}}`)
			}
		case p.Type == "integer" || p.Type == "number" || p.Type == "boolean" || p.Type == "object":
			b.WriteString(`{"type":`)
			writeJSON(&b, p.Type)
			b.WriteByte('}')
		default:
			b.WriteString(`{"type":"string"`)
			if limit > 0 {
				fmt.Fprintf(&b, `,"maxLength":%d`, limit)
			}
			b.WriteByte('}')
		}
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		writeJSON(&b, required)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// atLimit returns the first string argument of a call that filled its
// bound, and the bound.
func (l ConstrainedLimits) atLimit(tool string, args json.RawMessage) (string, int) {
	caps := l.Args[tool]
	if len(caps) == 0 {
		return "", 0
	}
	keys, obj, ok := orderedObject(args)
	if !ok {
		return "", 0
	}
	for _, k := range keys {
		var s string
		if c := caps[k]; c > 0 && json.Unmarshal(obj[k], &s) == nil && utf8.RuneCountInString(s) >= c {
			return k, c
		}
	}
	return "", 0
}

// ConstrainedAnswer returns the answer of a constrained reply that holds
// one ({"answer": "…"}); ok is false for a call or anything else.
func ConstrainedAnswer(content string) (answer string, ok bool) {
	var v struct {
		Answer *string `json:"answer"`
		Name   *string `json:"name"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(content)), &v) != nil || v.Answer == nil || v.Name != nil {
		return "", false
	}
	return *v.Answer, true
}

// RepairConstrainedReply reads a constrained reply: the answer, or the one
// call (checked against specs like any other, and refused when a string
// argument filled its bound in limits). A reply that does not
// match the schema, as one cut at the output limit does not, goes through
// the whole repair pipeline instead.
func RepairConstrainedReply(m Message, specs []ToolSpec, limits ConstrainedLimits) Recovery {
	if len(m.ToolCalls) > 0 {
		return RepairReply(m, specs)
	}
	// Reasoning that leaked into the content ahead of the JSON: a server
	// that did not split it off ("…so I read it.\n</think>{…}"). A reply
	// that is one JSON value as a whole is the schema's, whatever its
	// strings hold ("</think>" too).
	if i := strings.LastIndex(m.Content, "</think>"); i >= 0 && !json.Valid([]byte(m.Content)) {
		m.Content = m.Content[i+len("</think>"):]
	}
	if answer, ok := ConstrainedAnswer(m.Content); ok {
		return Recovery{Rest: answer}
	}
	// An answer cut at the output limit: what it says so far.
	if c := strings.TrimSpace(m.Content); strings.HasPrefix(c, `{"answer"`) {
		if v, _, err := parseJSON(c); err == nil {
			if answer, ok := ConstrainedAnswer(string(v)); ok {
				return Recovery{Rest: answer}
			}
		}
	}
	var v struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(m.Content)), &v) == nil && v.Name != "" {
		c := mend(RepairedCall{ToolCall: ToolCall{Name: v.Name, Arguments: v.Arguments}, Path: RepairConstrained}, specs)
		if k, n := limits.atLimit(c.Name, c.Arguments); k != "" && c.Problem == "" {
			c.Problem = fmt.Sprintf("argument %q of %s reached its limit of %d characters in this mode, so it may be cut short; it was not run. Do the work in smaller steps: a smaller edit, or the file in parts", k, c.Name, n)
		}
		return Recovery{Calls: []RepairedCall{c}}
	}
	return RepairReply(m, specs)
}

// ConstrainedText writes an assistant message as a constrained reply, for
// the history the model sees: its first call, or its text as the answer.
func ConstrainedText(m Message) string {
	if len(m.ToolCalls) > 0 {
		var parts []string
		for _, c := range m.ToolCalls {
			parts = append(parts, FormatCall(FormatJSON, c.Name, c.Arguments))
		}
		return strings.Join(parts, "\n")
	}
	var b bytes.Buffer
	b.WriteString(`{"answer": `)
	writeJSON(&b, m.Content)
	b.WriteByte('}')
	return b.String()
}
