package models

import (
	"bytes"
	"encoding/json"
)

// Param is one top-level property of a tool's parameters. Most tools need no
// more than this; a tool with nested parameters (an MCP tool, say) writes its
// JSON Schema directly into ToolSpec.Parameters.
type Param struct {
	Name        string
	Type        string // "string", "integer", "number", "boolean", "array", "object"
	Description string
	Required    bool
	Enum        []string
	// Items is the element type of an array ("string" if empty).
	Items string
}

// Schema builds the JSON Schema object for params, in the order given.
func Schema(params ...Param) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(&b, p.Name)
		b.WriteString(`:{"type":`)
		writeJSON(&b, p.Type)
		if p.Type == "array" {
			items := p.Items
			if items == "" {
				items = "string"
			}
			b.WriteString(`,"items":{"type":`)
			writeJSON(&b, items)
			b.WriteByte('}')
		}
		if p.Description != "" {
			b.WriteString(`,"description":`)
			writeJSON(&b, p.Description)
		}
		if len(p.Enum) > 0 {
			b.WriteString(`,"enum":`)
			writeJSON(&b, p.Enum)
		}
		b.WriteByte('}')
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

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)       // strings and string slices always encode
	b.Truncate(b.Len() - 1) // Encode appends a newline
}

// WireJSON is the tool as Ollama's native API carries it:
// {"type":"function","function":{"name":…,"description":…,"parameters":…}}.
// Token counts of the tool list are taken over this form.
func (t ToolSpec) WireJSON() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"function","function":{"name":`)
	writeJSON(&b, t.Name)
	b.WriteString(`,"description":`)
	writeJSON(&b, t.Description)
	b.WriteString(`,"parameters":`)
	if len(t.Parameters) == 0 {
		b.WriteString(`{"type":"object","properties":{}}`)
	} else {
		b.Write(t.Parameters)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// SchemaParams reads the top-level properties back out of a JSON Schema, in
// order, for validation and for describing tools in text. Unknown shapes
// yield what could be read.
func SchemaParams(schema json.RawMessage) []Param {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var params []Param
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := tok.(string)
		var prop struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
			Items       struct {
				Type string `json:"type"`
			} `json:"items"`
		}
		if err := dec.Decode(&prop); err != nil {
			break
		}
		p := Param{Name: name, Description: prop.Description, Items: prop.Items.Type}
		switch t := prop.Type.(type) {
		case string:
			p.Type = t
		case []any: // ["string","null"]
			for _, v := range t {
				if s, ok := v.(string); ok && s != "null" {
					p.Type = s
					break
				}
			}
		}
		for _, e := range prop.Enum {
			if s, ok := e.(string); ok {
				p.Enum = append(p.Enum, s)
			}
		}
		for _, r := range s.Required {
			if r == name {
				p.Required = true
			}
		}
		params = append(params, p)
	}
	return params
}
