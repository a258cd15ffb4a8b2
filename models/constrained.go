package models

import (
	"bytes"
	"encoding/json"
	"strings"
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

// ConstrainedSchema is the JSON schema of a constrained reply for specs:
// anyOf one object per tool ({"name": const, "arguments": the tool's
// parameters}) and the answer object. The tools' parameters are rewritten
// to the keywords every grammar converter knows (type, properties,
// required, enum, items), so that an MCP tool's exotic schema cannot make
// the request fail.
func ConstrainedSchema(specs []ToolSpec) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"anyOf":[`)
	for _, s := range specs {
		b.WriteString(`{"type":"object","properties":{"name":{"const":`)
		writeJSON(&b, s.Name)
		b.WriteString(`},"arguments":`)
		b.Write(plainSchema(s.Parameters))
		b.WriteString(`},"required":["name","arguments"]},`)
	}
	b.WriteString(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}]}`)
	return b.Bytes()
}

// plainSchema rewrites a tool's parameters with the keywords a grammar
// converter surely knows: each top-level property's type (with enum and
// array item type), and which are required.
func plainSchema(params json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range SchemaParams(params) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(&b, p.Name)
		b.WriteByte(':')
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
			b.WriteString(`}}`)
		case p.Type == "string" || p.Type == "integer" || p.Type == "number" || p.Type == "boolean" || p.Type == "object":
			b.WriteString(`{"type":`)
			writeJSON(&b, p.Type)
			b.WriteByte('}')
		default:
			b.WriteString(`{"type":"string"}`)
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
// call (checked against specs like any other). A reply that does not
// match the schema, as one cut at the output limit does not, goes through
// the whole repair pipeline instead.
func RepairConstrainedReply(m Message, specs []ToolSpec) Recovery {
	if len(m.ToolCalls) > 0 {
		return RepairReply(m, specs)
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
