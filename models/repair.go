package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Repair paths: how a tool call was recovered from what the model produced.
const (
	RepairNative = "native" // the structured tool_calls field
	RepairTagged = "tagged" // <tool_call>{…}</tool_call> in the text
	RepairFenced = "fenced" // a ```json fenced block in the text
	RepairBare   = "bare"   // a bare {"name":…, "arguments":…} object in the text
)

var (
	taggedCall = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	fencedCall = regexp.MustCompile("(?s)```(?:json|tool|tool_call)?\\s*\\n(.*?)\\n?```")
)

// ExtractToolCalls recovers tool calls a model wrote as text instead of in
// the structured field. It returns the calls, the text with the calls
// removed, and the repair path that found them ("" when none did).
func ExtractToolCalls(text string) (calls []ToolCall, rest, how string) {
	for _, p := range []struct {
		re  *regexp.Regexp
		how string
	}{{taggedCall, RepairTagged}, {fencedCall, RepairFenced}} {
		var found []ToolCall
		rest := p.re.ReplaceAllStringFunc(text, func(m string) string {
			inner := p.re.FindStringSubmatch(m)[1]
			cs := decodeCalls(inner)
			if len(cs) == 0 {
				return m
			}
			found = append(found, cs...)
			return ""
		})
		if len(found) > 0 {
			return found, strings.TrimSpace(rest), p.how
		}
	}
	if found, rest := bareCalls(text); len(found) > 0 {
		return found, rest, RepairBare
	}
	return nil, text, ""
}

// bareCalls finds JSON objects in text that decode as tool calls.
func bareCalls(text string) (calls []ToolCall, rest string) {
	var keep strings.Builder
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			keep.WriteString(text[i:])
			break
		}
		keep.WriteString(text[i : i+j])
		i += j
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			keep.WriteByte('{')
			i++
			continue
		}
		if cs := decodeCalls(string(raw)); len(cs) > 0 {
			calls = append(calls, cs...)
		} else {
			keep.Write(raw)
		}
		i += int(dec.InputOffset())
	}
	return calls, strings.TrimSpace(keep.String())
}

// decodeCalls reads one call object, or an array of them.
func decodeCalls(s string) []ToolCall {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var items []json.RawMessage
		if json.Unmarshal([]byte(s), &items) != nil {
			return nil
		}
		var calls []ToolCall
		for _, it := range items {
			if c, ok := decodeCall(it); ok {
				calls = append(calls, c)
			}
		}
		return calls
	}
	if c, ok := decodeCall([]byte(s)); ok {
		return []ToolCall{c}
	}
	return nil
}

func decodeCall(data []byte) (ToolCall, bool) {
	var obj struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Args       json.RawMessage `json:"args"`
		Parameters json.RawMessage `json:"parameters"`
		Function   *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal(data, &obj) != nil {
		return ToolCall{}, false
	}
	name, args := obj.Name, obj.Arguments
	if obj.Function != nil {
		name, args = obj.Function.Name, obj.Function.Arguments
	}
	if args == nil {
		args = obj.Args
	}
	if args == nil {
		args = obj.Parameters
	}
	if name == "" {
		return ToolCall{}, false
	}
	return ToolCall{Name: name, Arguments: normalizeArgs(args)}, true
}

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
		if isString { // a single value where a list was wanted
			b, _ := json.Marshal([]string{s})
			return b, true
		}
	case "object":
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
	var b bytes.Buffer
	b.WriteString(`{"name": `)
	writeJSON(&b, spec.Name)
	b.WriteString(`, "arguments": {`)
	first := true
	for _, p := range SchemaParams(spec.Parameters) {
		if !p.Required {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		writeJSON(&b, p.Name)
		b.WriteString(": ")
		switch p.Type {
		case "integer", "number":
			b.WriteString("1")
		case "boolean":
			b.WriteString("true")
		case "array":
			b.WriteString(`["…"]`)
		default:
			b.WriteString(`"…"`)
		}
	}
	b.WriteString("}}")
	return b.String()
}
