package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// normalizeArgs turns missing arguments into {} and arguments given as a
// JSON string holding an object into that object.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage(`{}`)
	}
	if args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil && json.Valid([]byte(s)) {
			return json.RawMessage(strings.TrimSpace(s))
		}
	}
	return args
}

// CheckArgs validates a call's arguments against spec. It coerces what is
// safe to coerce (a number written as a string, arguments sent as a JSON
// string) and drops arguments the tool does not take, with notes saying so.
// An error says what is wrong in words the model can act on.
func CheckArgs(spec ToolSpec, args json.RawMessage) (fixed json.RawMessage, notes []string, err error) {
	args = normalizeArgs(args)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, nil, fmt.Errorf("arguments of %s must be a JSON object, like %s", spec.Name, example(spec))
	}
	params := SchemaParams(spec.Parameters)
	known := make(map[string]Param, len(params))
	for _, p := range params {
		known[p.Name] = p
	}
	var missing []string
	for _, p := range params {
		if _, ok := obj[p.Name]; p.Required && !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%s needs %s; call it like %s", spec.Name, strings.Join(missing, " and "), example(spec))
	}
	changed := false
	for name, v := range obj {
		p, ok := known[name]
		if !ok && len(params) > 0 {
			delete(obj, name)
			notes = append(notes, fmt.Sprintf("ignored unknown argument %q", name))
			changed = true
			continue
		}
		if c, ok := coerce(p.Type, v); ok {
			if !bytes.Equal(c, v) {
				obj[name] = c
				changed = true
			}
			continue
		}
		return nil, nil, fmt.Errorf("argument %q of %s must be %s, got %s", name, spec.Name, article(p.Type), v)
	}
	if !changed {
		return args, notes, nil
	}
	// Re-encode in the schema's order so repaired calls read naturally.
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, p := range params {
		if v, ok := obj[p.Name]; ok {
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeJSON(&b, p.Name)
			b.WriteByte(':')
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), notes, nil
}

// coerce returns v as JSON of type typ when it is, or can safely become, one.
func coerce(typ string, v json.RawMessage) (json.RawMessage, bool) {
	v = bytes.TrimSpace(v)
	if typ == "" || string(v) == "null" {
		return v, true
	}
	var s string
	isString := json.Unmarshal(v, &s) == nil && len(v) > 0 && v[0] == '"'
	switch typ {
	case "string":
		if isString {
			return v, true
		}
		if len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9') || v[0] == 't' || v[0] == 'f') {
			b, _ := json.Marshal(string(v))
			return b, true
		}
	case "integer":
		if isString {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
				return json.RawMessage(strconv.Itoa(n)), true
			}
			return nil, false
		}
		var f float64
		if json.Unmarshal(v, &f) == nil && f == float64(int64(f)) {
			return json.RawMessage(strconv.FormatInt(int64(f), 10)), true
		}
	case "number":
		if isString {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
			}
			return nil, false
		}
		var f float64
		return v, json.Unmarshal(v, &f) == nil
	case "boolean":
		if isString {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true", "yes", "1":
				return json.RawMessage("true"), true
			case "false", "no", "0":
				return json.RawMessage("false"), true
			}
			return nil, false
		}
		return v, string(v) == "true" || string(v) == "false"
	case "array":
		if len(v) > 0 && v[0] == '[' {
			return v, true
		}
		if t := strings.TrimSpace(s); isString && strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
			return json.RawMessage(t), true // a list written as text (an XML call's value)
		}
		if isString { // a single value where a list was wanted
			b, _ := json.Marshal([]string{s})
			return b, true
		}
	case "object":
		if t := strings.TrimSpace(s); isString && strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return json.RawMessage(t), true // an object written as text (an XML call's value)
		}
		return v, len(v) > 0 && v[0] == '{'
	default:
		return v, true
	}
	return nil, false
}

func article(typ string) string {
	switch typ {
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}

// example renders a minimal valid call of spec, for corrections.
func example(spec ToolSpec) string {
	return FormatCall(FormatJSON, spec.Name, ExampleArgs(spec))
}

// ExampleArgs returns arguments for a short valid call of spec: its
// required parameters, with values that read like a real call ("main.go"
// for a path), since small models copy placeholders literally.
func ExampleArgs(spec ToolSpec) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, p := range SchemaParams(spec.Parameters) {
		if !p.Required {
			continue
		}
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		writeJSON(&b, p.Name)
		b.WriteString(": ")
		b.WriteString(exampleValue(spec.Name, p))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// exampleValues are example values by parameter name.
var exampleValues = map[string]string{
	"path": `"main.go"`, "file": `"main.go"`, "file_path": `"main.go"`, "filename": `"main.go"`,
	"dir": `"."`, "directory": `"."`,
	"query": `"where the config is parsed"`, "command": `"go test ./..."`,
	"old_string": `"return nil"`, "new_string": `"return err"`, "content": `"package main\n"`,
	"url": `"https://go.dev/doc/"`, "message": `"Fix the parser"`,
	"tools": `["edit_file"]`, "tier": `1`,
}

func exampleValue(tool string, p Param) string {
	if len(p.Enum) > 0 {
		return quoteJSON(p.Enum[0])
	}
	if p.Name == "pattern" {
		if strings.Contains(tool, "glob") {
			return `"**/*.go"`
		}
		return `"func main"`
	}
	if v, ok := exampleValues[p.Name]; ok {
		return v
	}
	switch p.Type {
	case "integer", "number":
		return "1"
	case "boolean":
		return "true"
	case "array":
		return `["main.go"]`
	case "object":
		return "{}"
	}
	return `"…"`
}

// Text call formats: how a call is written in the text tool protocol, in
// the shape a model family was trained on.
const (
	// FormatTagged is <tool_call>{"name": …, "arguments": {…}}</tool_call>
	// (Qwen, Hermes-style templates, and the default).
	FormatTagged = "tagged"
	// FormatJSON is a bare {"name": …, "arguments": {…}} object.
	FormatJSON = "json"
	// FormatLlama is a bare {"name": …, "parameters": {…}} object, as
	// Llama 3.x writes calls.
	FormatLlama = "llama"
	// FormatMistral is [TOOL_CALLS][{"name": …, "arguments": {…}}].
	FormatMistral = "mistral"
	// FormatConstrained is the bare object of FormatJSON, in the
	// constrained tool mode, whose replies are JSON objects only
	// (ConstrainedSchema).
	FormatConstrained = "constrained"
)

// CallFormat is the format a session's calls are written in for the
// model: its family's text format, or the constrained mode's JSON object.
func CallFormat(family string, constrained bool) string {
	if constrained {
		return FormatConstrained
	}
	return family
}

// FormatCall writes a call as text in format (FormatTagged when empty or
// unknown). args must be a JSON object.
func FormatCall(format, name string, args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	key := "arguments"
	if format == FormatLlama {
		key = "parameters"
	}
	obj := `{"name": ` + quoteJSON(name) + `, "` + key + `": ` + string(args) + `}`
	switch format {
	case FormatJSON, FormatLlama, FormatConstrained:
		return obj
	case FormatMistral:
		return "[TOOL_CALLS][" + obj + "]"
	}
	return "<tool_call>" + obj + "</tool_call>"
}
