package models

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// pyCall matches the start of a Python-style call: a dotted name and "(".
var pyCall = regexp.MustCompile(`^([A-Za-z_][\w.\-]*)\s*\(`)

// pythonicCalls reads Python call syntax: read_file(path="a.go", limit=20),
// several of them separated by commas, semicolons or newlines, optionally in
// a list ([a(…), b(…)]) or wrapped in print(…) as Gemma writes it. ok is
// false unless the whole text is such calls.
func pythonicCalls(text string) (calls []rawCall, ok bool) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	for s != "" {
		m := pyCall.FindStringSubmatch(s)
		if m == nil {
			return nil, false
		}
		open := len(m[0]) - 1
		end := matchParen(s, open)
		if end < 0 {
			return nil, false
		}
		name, inner := m[1], s[open+1:end-1]
		s = strings.TrimLeft(s[end:], " \t\r\n,;")
		if name == "print" { // print(read_file(path="a.go"))
			inside, ok := pythonicCalls(inner)
			if !ok {
				return nil, false
			}
			calls = append(calls, inside...)
			continue
		}
		args, ok := pythonArgs(inner)
		if !ok {
			return nil, false
		}
		calls = append(calls, rawCall{call: ToolCall{Name: name, Arguments: args}, explicit: true})
	}
	return calls, len(calls) > 0
}

// matchParen returns the index just past the ")" closing the "(" at
// s[open], skipping quoted strings; -1 when it is not closed.
func matchParen(s string, open int) int { return closing(s, open, "([{", ")]}") }

// pythonArgs turns `path="a.go", limit=20` into a JSON object. Arguments
// given without a name are kept by position ("$0", …) for mend to map.
func pythonArgs(inner string) (json.RawMessage, bool) {
	var b bytes.Buffer
	b.WriteByte('{')
	pos := 0
	for i, part := range splitTopLevel(inner) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key := "$" + strconv.Itoa(pos)
		if eq := topLevelEquals(part); eq > 0 && isIdent(strings.TrimSpace(part[:eq])) {
			key, part = strings.TrimSpace(part[:eq]), strings.TrimSpace(part[eq+1:])
		} else {
			pos++
		}
		v, err := pythonValue(part)
		if err != nil {
			return nil, false
		}
		if i > 0 && b.Len() > 1 {
			b.WriteByte(',')
		}
		writeJSON(&b, key)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// pythonValue reads a Python literal as JSON: strings in either quotes,
// numbers, True/False/None, lists and dicts.
func pythonValue(s string) (json.RawMessage, error) {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s), nil
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return json.Marshal(unescapePython(s[1 : len(s)-1]))
	}
	fixed, err := repairJSON(s)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(fixed), nil
}

// unescapePython undoes the escapes a single-quoted Python string uses.
func unescapePython(s string) string {
	r := strings.NewReplacer(`\'`, `'`, `\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t")
	return r.Replace(s)
}

// splitTopLevel splits s at commas outside brackets and quotes.
func splitTopLevel(s string) []string {
	var parts []string
	start := 0
	scanUnquoted(s, 0, "([{", ")]}", func(i int, c byte, depth int) bool {
		if c == ',' && depth == 0 {
			parts = append(parts, s[start:i])
			start = i + 1
		}
		return true
	})
	return append(parts, s[start:])
}

// topLevelEquals returns the index of the first "=" outside quotes and
// brackets that is not part of "==", or -1.
func topLevelEquals(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '(', '[', '{':
			return -1
		case '=':
			if i+1 < len(s) && s[i+1] == '=' {
				return -1
			}
			return i
		}
	}
	return -1
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func jsonValid(s string) bool { return json.Valid([]byte(s)) }

func quoteJSON(s string) string {
	var b bytes.Buffer
	writeJSON(&b, s)
	return b.String()
}
