package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// paramDescriptionBudget is the most characters of a parameter's
// description kept from a server's schema.
const paramDescriptionBudget = 120

// maxSchemaDepth bounds how deep a schema is copied; deeper parts, and
// recursive references, become a bare {"type":"object"}.
const maxSchemaDepth = 6

// compactSchema turns a server's input schema into the JSON Schema tern
// sends: only the keywords Ollama's tool format keeps (type, description,
// enum, items, properties, required, anyOf), so the token count tern takes
// of it is what the model reads and the schema always fits Ollama's types.
// On the way it inlines $ref to $defs/definitions, merges allOf, reads
// oneOf as anyOf and const as a one-value enum, drops "null" from optional
// types, trims descriptions, notes scalar defaults in the description, and
// orders properties required first, then by name. The output is the same
// bytes for the same input.
func compactSchema(v any) json.RawMessage {
	var root map[string]any
	if raw, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(raw, &root) // not an object: root stays nil
	}
	c := &compactor{defs: map[string]any{}}
	for _, key := range []string{"definitions", "$defs"} {
		if defs, ok := root[key].(map[string]any); ok {
			for name, d := range defs {
				c.defs["#/"+key+"/"+name] = d
			}
		}
	}
	var b bytes.Buffer
	node := c.resolve(root, nil)
	node["type"] = "object"
	if _, ok := node["properties"].(map[string]any); !ok {
		node["properties"] = map[string]any{}
	}
	delete(node, "anyOf")
	c.write(&b, node, 0, true)
	return b.Bytes()
}

type compactor struct {
	defs map[string]any
}

// resolve returns m with $ref, allOf, oneOf and const rewritten, as a new
// map; m itself is not changed. refs are the references being expanded on
// the way to m: a reference back to one of them (a recursive type) is not
// expanded again.
func (c *compactor) resolve(m map[string]any, refs []string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if ref, ok := out["$ref"].(string); ok {
		delete(out, "$ref")
		target, found := c.defs[ref].(map[string]any)
		if found && !slices.Contains(refs, ref) && len(refs) < maxSchemaDepth {
			merged := c.resolve(target, append(slices.Clip(refs), ref))
			for k, v := range out {
				merged[k] = v // the referring schema's own keywords win
			}
			out = merged
		} else if _, typed := out["type"]; !typed {
			out["type"] = "object"
		}
	}
	if r, ok := out["$refs"].([]string); ok {
		refs = r
	}
	if all, ok := out["allOf"].([]any); ok {
		delete(out, "allOf")
		for _, part := range all {
			pm, ok := part.(map[string]any)
			if !ok {
				continue
			}
			pm = c.resolve(pm, refs)
			for k, v := range pm {
				switch k {
				case "properties":
					props, _ := out["properties"].(map[string]any)
					merged := map[string]any{}
					for name, p := range props {
						merged[name] = p
					}
					if pp, ok := v.(map[string]any); ok {
						for name, p := range pp {
							if _, had := merged[name]; !had {
								merged[name] = p
							}
						}
					}
					out["properties"] = merged
				case "required":
					req, _ := out["required"].([]any)
					if rr, ok := v.([]any); ok {
						out["required"] = append(slices.Clone(req), rr...)
					}
				default:
					if _, had := out[k]; !had {
						out[k] = v
					}
				}
			}
		}
	}
	if one, ok := out["oneOf"]; ok {
		delete(out, "oneOf")
		if _, has := out["anyOf"]; !has {
			out["anyOf"] = one
		}
	}
	if cv, ok := out["const"]; ok {
		delete(out, "const")
		if _, has := out["enum"]; !has {
			out["enum"] = []any{cv}
		}
		if _, typed := out["type"]; !typed {
			if _, isString := cv.(string); isString {
				out["type"] = "string"
			}
		}
	}
	// An optional value written as anyOf [X, {"type":"null"}] is just X.
	if alts, ok := out["anyOf"].([]any); ok {
		var kept []any
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && am["type"] == "null" && len(am) == 1 {
				continue
			}
			kept = append(kept, a)
		}
		if len(kept) == 1 {
			if am, ok := kept[0].(map[string]any); ok {
				delete(out, "anyOf")
				inner := c.resolve(am, refs)
				for k, v := range out {
					inner[k] = v
				}
				out = inner
			}
		} else {
			out["anyOf"] = kept
		}
	}
	if len(refs) > 0 {
		out["$refs"] = refs // for the nested schemas write resolves
	}
	return out
}

// write writes the kept keywords of m, a resolved schema, in a fixed
// order. Below maxSchemaDepth only a schema's type is written.
func (c *compactor) write(b *bytes.Buffer, m map[string]any, depth int, top bool) {
	b.WriteByte('{')
	first := true
	key := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeValue(b, k)
		b.WriteByte(':')
	}
	if t := schemaType(m["type"]); t != nil {
		key("type")
		writeValue(b, t)
	}
	if d := description(m, top); d != "" {
		key("description")
		writeValue(b, d)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		key("enum")
		writeValue(b, e)
	}
	refs, _ := m["$refs"].([]string)
	nested := func(v any) {
		vm, ok := v.(map[string]any)
		if !ok {
			b.WriteString(`{"type":"object"}`)
			return
		}
		inner := c.resolve(vm, refs)
		if depth+1 >= maxSchemaDepth {
			t := schemaType(inner["type"])
			if t == nil {
				t = "object"
			}
			b.WriteString(`{"type":`)
			writeValue(b, t)
			b.WriteByte('}')
			return
		}
		c.write(b, inner, depth+1, false)
	}
	if items, ok := m["items"]; ok {
		if _, isMap := items.(map[string]any); isMap {
			key("items")
			nested(items)
		}
	}
	props, _ := m["properties"].(map[string]any)
	if props != nil {
		key("properties")
		b.WriteByte('{')
		for i, name := range propertyOrder(props, m["required"]) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, name)
			b.WriteByte(':')
			nested(props[name])
		}
		b.WriteByte('}')
		var req []string
		if rr, ok := m["required"].([]any); ok {
			for _, r := range rr {
				if s, ok := r.(string); ok && props[s] != nil && !slices.Contains(req, s) {
					req = append(req, s)
				}
			}
		}
		if len(req) > 0 {
			key("required")
			writeValue(b, req)
		}
	}
	if alts, ok := m["anyOf"].([]any); ok && len(alts) > 0 {
		key("anyOf")
		b.WriteByte('[')
		for i, a := range alts {
			if i > 0 {
				b.WriteByte(',')
			}
			nested(a)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// schemaType reads "type": a string, or a list of strings without "null"
// (a list of one becomes that string).
func schemaType(v any) any {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var types []string
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				types = append(types, s)
			}
		}
		switch len(types) {
		case 0:
			return nil
		case 1:
			return types[0]
		}
		return types
	}
	return nil
}

// description is a property's description, trimmed, with a scalar default
// noted: Ollama's format drops "default", and a model that knows it can
// leave the argument out.
func description(m map[string]any, top bool) string {
	if top {
		return "" // the tool's description says it
	}
	d, _ := m["description"].(string)
	d = shortDescription(d, paramDescriptionBudget)
	if def, ok := m["default"]; ok {
		var s string
		switch v := def.(type) {
		case string:
			if v != "" && len(v) <= 40 {
				s = fmt.Sprintf("%q", v)
			}
		case float64, bool:
			s = fmt.Sprint(v)
		}
		if s != "" {
			d = strings.TrimSpace(d + " (default " + s + ")")
		}
	}
	return d
}

// propertyOrder lists the properties required first, in the order of the
// required list, then the others by name. JSON objects have no order, and
// the SDK hands the schema over as a map, so this is the stable order
// closest to the author's intent.
func propertyOrder(props map[string]any, required any) []string {
	var names []string
	if rr, ok := required.([]any); ok {
		for _, r := range rr {
			if s, ok := r.(string); ok && props[s] != nil && !slices.Contains(names, s) {
				names = append(names, s)
			}
		}
	}
	var rest []string
	for name := range props {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

func writeValue(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.WriteString("null")
		return
	}
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
