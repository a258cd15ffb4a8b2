package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kaptinlin/jsonrepair"
)

// rawCall is a call decoded from text, before it is checked against a tool.
type rawCall struct {
	call  ToolCall
	fixes []string
	// explicit is set when the object said "arguments" (or an alias of it)
	// outright, which plain data rarely does.
	explicit bool
	// truncated is set when the call's text stopped inside a string: the
	// model was cut off, and its last argument is not what it meant.
	truncated bool
}

// Keys small models use for a call's name and for its arguments, in the
// order they are tried.
var (
	nameKeys = []string{"name", "tool_name", "function_name", "tool", "function", "action", "recipient_name"}
	argKeys  = []string{"arguments", "args", "parameters", "params", "input", "action_input", "tool_input", "argument", "kwargs"}
	// notArgs are keys next to a name that are never arguments.
	notArgs = map[string]bool{"type": true, "id": true, "index": true, "call_id": true}
)

// decodePayload reads the calls in text that is meant to hold calls: one
// JSON object, an array of them, several objects one after another, each
// repaired if its syntax is broken. It returns the calls and, when none
// could be read, why.
func decodePayload(text string) ([]rawCall, string) {
	var calls []rawCall
	var why string
	for _, chunk := range jsonChunks(text) {
		v, repaired, err := parseJSON(chunk)
		if err != nil {
			why = err.Error()
			continue
		}
		cs := callsIn(v)
		if len(cs) == 0 {
			why = "it names no tool"
			continue
		}
		cut := repaired && endsInString(chunk)
		for i := range cs {
			if repaired {
				cs[i].fixes = append([]string{FixJSON}, cs[i].fixes...)
			}
			cs[i].truncated = cs[i].truncated || cut
		}
		calls = append(calls, cs...)
	}
	if len(calls) > 0 {
		return calls, ""
	}
	if why == "" {
		why = "it holds no JSON object"
	}
	return nil, why
}

// jsonChunks splits text into its top-level JSON-looking parts: each runs
// from a '{' or '[' to its matching close, or to the end of the text when
// the model stopped early. What lies between them is dropped.
func jsonChunks(text string) []string {
	var chunks []string
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], "{[")
		if j < 0 {
			break
		}
		start := i + j
		end := matchClose(text, start)
		chunks = append(chunks, text[start:end])
		i = end
	}
	return chunks
}

// matchClose returns the index just past the bracket that closes the one at
// text[start], or len(text) when it is never closed. Strings in double or
// single quotes are skipped, with their escapes.
func matchClose(text string, start int) int {
	if end := closing(text, start, "{[", "}]"); end >= 0 {
		return end
	}
	return len(text)
}

// closing returns the index just past the bracket that closes the one at
// s[start], counting only the brackets in opens and closes, or -1 when it
// is never closed.
func closing(s string, start int, opens, closes string) int {
	end := -1
	scanUnquoted(s, start, opens, closes, func(i int, _ byte, depth int) bool {
		if depth == 0 {
			end = i + 1
			return false
		}
		return true
	})
	return end
}

// endsInString reports whether s stops inside a quoted string: text cut
// off in the middle of an argument.
func endsInString(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && c == '"':
			quote = c
		}
	}
	return quote != 0
}

// scanUnquoted calls fn for each byte of s from start on that is outside a
// string in double or single quotes (escapes honoured), with the bracket
// depth after it; opens and closes are the brackets counted. fn returns
// false to stop.
func scanUnquoted(s string, start int, opens, closes string, fn func(i int, c byte, depth int) bool) {
	depth := 0
	var quote byte
	for i := start; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch {
		case c == '"' || c == '\'':
			quote = c
			continue
		case strings.IndexByte(opens, c) >= 0:
			depth++
		case strings.IndexByte(closes, c) >= 0:
			depth--
		}
		if !fn(i, c, depth) {
			return
		}
	}
}

// parseJSON decodes one JSON value, repairing its syntax when it must:
// trailing commas, single quotes, unquoted keys, raw newlines in strings,
// missing closing brackets, Python's True/False/None, stray backslashes.
func parseJSON(s string) (json.RawMessage, bool, error) {
	s = strings.TrimSpace(s)
	if json.Valid([]byte(s)) {
		return json.RawMessage(s), false, nil
	}
	if len(s) > maxRepairBytes || depth(s) > maxRepairDepth {
		return nil, false, errors.New("the JSON is broken and too long or deep to repair")
	}
	fixed, err := repairJSON(s)
	if err != nil {
		return nil, false, err
	}
	return json.RawMessage(fixed), true, nil
}

// maxRepairBytes bounds the JSON tern tries to repair: a reply is capped
// by the output reserve, and a broken megabyte is not a call to save.
const maxRepairBytes = 256 << 10

// maxRepairDepth bounds the nesting of JSON tern tries to repair; a call's
// arguments are seldom more than three levels deep, and repair time grows
// with depth.
const maxRepairDepth = 32

// depth is how deeply brackets nest in s, strings aside.
func depth(s string) int {
	most := 0
	scanUnquoted(s, 0, "{[", "}]", func(_ int, _ byte, d int) bool {
		most = max(most, d)
		return true
	})
	return most
}

// repairJSON mends broken JSON with jsonrepair, a port of the jsonrepair
// JavaScript library made for what language models write. Backslashes that
// start no JSON escape (`\w` in a regular expression) are doubled first,
// since jsonrepair would drop them; quotes inside strings that the model
// forgot to escape get a second try.
func repairJSON(s string) (string, error) {
	s = escapeBackslashes(s)
	if json.Valid([]byte(s)) {
		return s, nil
	}
	out, err := repairKeepingEscapes(s)
	if err != nil {
		quoted := escapeStrayQuotes(s)
		if json.Valid([]byte(quoted)) {
			return quoted, nil
		}
		if out2, err2 := repairKeepingEscapes(quoted); err2 == nil {
			out, err = out2, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("the JSON is broken beyond repair (%s)", shortJSONError(err))
	}
	if !json.Valid([]byte(out)) {
		return "", errors.New("the JSON is broken beyond repair")
	}
	return out, nil
}

// repairKeepingEscapes repairs s with jsonrepair, keeping its escapes as
// written. jsonrepair reads a string that looks like a file path
// ("#!/bin/sh\necho hi", "C:\\Users") in a mode that escapes its
// backslashes again, so a script's newlines would be written as "\n"
// and a Windows path would double its separators. The escapes are hidden
// from it in private-use runes, and put back after.
func repairKeepingEscapes(s string) (string, error) {
	if strings.ContainsFunc(s, isEscapeRune) {
		return safeRepair(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\\/bfnrtu`, s[i+1]) >= 0 {
			b.WriteRune(escapeBase + rune(s[i+1]))
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	out, err := safeRepair(b.String())
	if err != nil {
		return "", err
	}
	var r strings.Builder
	for _, c := range out {
		if isEscapeRune(c) {
			r.WriteByte('\\')
			r.WriteByte(byte(c - escapeBase))
			continue
		}
		r.WriteRune(c)
	}
	return r.String(), nil
}

// escapeBase is where the private-use runes standing for escapes start:
// escapeBase+'n' stands for \n.
const escapeBase = 0xE000

func isEscapeRune(c rune) bool { return c >= escapeBase && c < escapeBase+0x80 }

// safeRepair calls jsonrepair.Repair and turns a panic into an error: the
// input is whatever a model wrote, and a crash must not end the turn.
func safeRepair(s string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("repair failed: %v", r)
		}
	}()
	return jsonrepair.Repair(s)
}

func shortJSONError(err error) string {
	msg, _, _ := strings.Cut(err.Error(), ":")
	return msg
}

// escapeBackslashes doubles each backslash that does not start a valid
// JSON escape.
func escapeBackslashes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(s) {
			switch n := s[i+1]; n {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', '\'':
				b.WriteByte(c)
				b.WriteByte(n)
				i++
				continue
			case 'u':
				if i+5 < len(s) && isHex(s[i+2:i+6]) {
					b.WriteByte(c)
					continue
				}
			}
		}
		b.WriteString(`\\`)
	}
	return b.String()
}

func isHex(s string) bool {
	_, err := strconv.ParseUint(s, 16, 16)
	return err == nil
}

// escapeStrayQuotes escapes double quotes inside strings that do not end
// the string: a quote ends a string only when what follows it (after
// spaces) is a comma, colon, closing bracket or the end of the text.
func escapeStrayQuotes(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\':
			b.WriteByte(c)
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
			continue
		case c == '"' && !in:
			in = true
		case c == '"' && in:
			next := strings.TrimLeft(s[i+1:], " \t\r\n")
			if next != "" && !strings.ContainsRune(",:}]", rune(next[0])) {
				b.WriteString(`\"`)
				continue
			}
			in = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

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
