package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// callsIn reads the calls in a decoded JSON value: a call object, an array
// of them, or a wrapper such as {"tool_calls": […]}.
func callsIn(v json.RawMessage) []rawCall {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil
	}
	if v[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return nil
		}
		var calls []rawCall
		for _, it := range items {
			calls = append(calls, callsIn(it)...)
		}
		return calls
	}
	keys, obj, ok := orderedObject(v)
	if !ok {
		return nil
	}
	for _, w := range []string{"tool_calls", "function_call", "tool_call", "tool_uses"} {
		if inner, ok := obj[w]; ok {
			return callsIn(inner)
		}
	}
	if c, ok := callFrom(keys, obj); ok {
		return []rawCall{c}
	}
	return nil
}

// callFrom reads one call object.
func callFrom(keys []string, obj map[string]json.RawMessage) (rawCall, bool) {
	// The OpenAI shape: {"type":"function","function":{"name":…,"arguments":…}}.
	if fn, ok := obj["function"]; ok && len(fn) > 0 && fn[0] == '{' {
		if k, o, ok := orderedObject(fn); ok {
			return callFrom(k, o)
		}
	}
	var rc rawCall
	nameKey := ""
	for _, k := range nameKeys {
		var s string
		if v, ok := obj[k]; ok && json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
			rc.call.Name, nameKey = strings.TrimSpace(s), k
			break
		}
	}
	for _, k := range argKeys {
		if v, ok := obj[k]; ok {
			rc.explicit = true
			if k != "arguments" {
				rc.fixes = append(rc.fixes, FixAlias)
			}
			args, fixes := argsValue(v)
			rc.call.Arguments = args
			rc.fixes = append(rc.fixes, fixes...)
			// A call that gives arguments but no name: mend infers the
			// tool from the argument names when only one fits.
			return rc, true
		}
	}
	if rc.call.Name == "" {
		return rc, false
	}
	// No arguments key: the other keys next to the name are the arguments.
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range keys {
		if k == nameKey || notArgs[k] {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeJSON(&b, k)
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	rc.call.Arguments = b.Bytes()
	if b.Len() > 2 {
		rc.fixes = append(rc.fixes, FixFlat)
	}
	return rc, true
}

// argsValue turns what a model gave as arguments into a JSON object: an
// object stays; a string holding an object (even a broken one) becomes that
// object; null becomes {}; any other value is taken as the first argument
// by position.
func argsValue(v json.RawMessage) (json.RawMessage, []string) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0 || string(v) == "null":
		return json.RawMessage("{}"), nil
	case v[0] == '{':
		return v, nil
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return json.RawMessage("{}"), nil
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return json.RawMessage("{}"), []string{FixString}
		}
		if strings.HasPrefix(s, "{") {
			if obj, repaired, err := parseJSON(s); err == nil && len(obj) > 0 && obj[0] == '{' {
				if repaired {
					return obj, []string{FixString, FixJSON}
				}
				return obj, []string{FixString}
			}
		}
	}
	// A bare value or a list: arguments by position.
	var items []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &items) != nil {
		items = []json.RawMessage{v}
	}
	return positionalObject(items), nil
}

// positionalObject holds arguments given by position under the keys "$0",
// "$1", …, until mend maps them to the tool's parameters.
func positionalObject(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"$%d":`, i)
		b.Write(it)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// positional maps arguments given by position ("$0", "$1", …) to the
// spec's parameters in schema order. ok is false when there were none.
func positional(spec ToolSpec, args json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(args, []byte(`"$0"`)) {
		return nil, false
	}
	keys, obj, ok := orderedObject(args)
	if !ok {
		return nil, false
	}
	params := SchemaParams(spec.Parameters)
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range keys {
		name := k
		if n, err := strconv.Atoi(strings.TrimPrefix(k, "$")); err == nil && strings.HasPrefix(k, "$") && n < len(params) {
			name = params[n].Name
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeJSON(&b, name)
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// orderedObject decodes a JSON object, keeping the order of its keys.
func orderedObject(v json.RawMessage) ([]string, map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(v))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	var keys []string
	obj := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, nil, false
		}
		if _, dup := obj[k]; !dup {
			keys = append(keys, k)
		}
		obj[k] = val
	}
	return keys, obj, true
}
