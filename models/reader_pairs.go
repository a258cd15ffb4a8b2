package models

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// pair is one argument as a reply wrote it, in whatever syntax: its key,
// its value (JSON text when json is set, else the plain value) and where
// it stands.
type pair struct {
	key, value string
	json       bool
	start, end int
	// rank orders syntaxes that read the same key: a valid JSON object
	// first, then the syntax written first.
	rank int
}

// The argument syntaxes of the tolerant reader.
var (
	// <parameter=path>main.go</parameter> (Qwen3-Coder; the closing tag
	// may be missing).
	paramEquals = regexp.MustCompile(`(?s)<parameter=([\w.\-]+)>(.*?)(?:</parameter>|<parameter[= ]|</function|</tool_call>|$)`)
	// <parameter name="path">main.go</parameter>, <param name="path">,
	// <arg name=path>.
	paramNamed = regexp.MustCompile(`(?s)<(?:parameter|param|arg|argument|property)\s+name\s*=\s*["']?([\w.\-]+)["']?\s*/?>(.*?)(?:</(?:parameter|param|arg|argument|property)>|<(?:parameter|param|arg|argument|property)\s|</invoke|</function|$)`)
	// <arg_key>path</arg_key><arg_value>main.go</arg_value> (GLM).
	argKeyValue = regexp.MustCompile(`(?s)<arg_key>\s*(.*?)\s*</arg_key>\s*<arg_value>(.*?)(?:</arg_value>|<arg_key>|$)`)
	// name="city">Paris: what a server's parser leaves of a tag it ate.
	attrRemains = regexp.MustCompile(`name\s*=\s*"([\w.\-]+)"\s*>\s*([^<\n]+)`)
	// <path>main.go</path>: a tag named after the argument.
	keyTag = regexp.MustCompile(`<([A-Za-z_][\w\-]*)>`)
	// --path main.go, --path=main.go, --path "a b".
	flagPair = regexp.MustCompile(`(?:^|[\s{(,\[])--([A-Za-z_][\w\-]*)(?:[ \t]*=[ \t]*|[ \t]+)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,}\])]+)`)
	// path => "main.go".
	arrowPair = regexp.MustCompile(`["']?([A-Za-z_][\w\-]*)["']?[ \t]*=>[ \t]*("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,}\])]+)`)
	// path="main.go", path=main.go.
	equalsPair = regexp.MustCompile(`(?:^|[\s,({\[])([A-Za-z_][\w\-]*)[ \t]*=[ \t]*("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,)}\]]+)`)
	// path 'main.go': a key, a space and a quoted value ("for
	// absolute_path 'requirements.txt'").
	spacedPair = regexp.MustCompile(`(?:^|[\s,(\[])([A-Za-z_][\w\-]*)[ \t]+("(?:[^"\\\n]|\\.)*"|'[^'\n]*')`)
	// path: main.go, one a line.
	colonPair = regexp.MustCompile(`(?m)^[ \t]*(?:[-*][ \t]+)?["']?([A-Za-z_][\w\-]*)["']?[ \t]*:[ \t]*(\S.*?)[ \t]*,?[ \t]*$`)
)

// wrapperTags are tags that wrap a call or its arguments, separators
// aside: never an argument of their own.
var wrapperTags = map[string]bool{"toolcall": true, "toolcalls": true, "functioncall": true, "functioncalls": true,
	"invoke": true, "tooluse": true, "arguments": true, "args": true, "parameters": true, "params": true,
	"think": true, "thinking": true}

// readPairs finds the argument pairs in text, in every syntax the reader
// knows; lines of key: value count only when lines is set (text that is
// a call's, not a sentence).
func readPairs(text string, lines bool) []pair {
	var out []pair
	add := func(key, value string, isJSON bool, start, end, rank int) {
		key = strings.TrimSpace(key)
		if key == "" {
			return
		}
		out = append(out, pair{key: key, value: value, json: isJSON, start: start, end: end, rank: rank})
	}
	jsonPairs(text, add)
	for _, m := range paramEquals.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], xmlValue(text[m[4]:m[5]]), false, m[0], m[5], 1)
	}
	for _, m := range paramNamed.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], xmlValue(text[m[4]:m[5]]), false, m[0], m[5], 1)
	}
	for _, m := range argKeyValue.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], xmlValue(text[m[4]:m[5]]), false, m[0], m[5], 1)
	}
	for _, m := range attrRemains.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], strings.TrimSpace(text[m[4]:m[5]]), false, m[0], m[1], 2)
	}
	for _, m := range keyTag.FindAllStringSubmatchIndex(text, -1) {
		key := text[m[2]:m[3]]
		if wrapperTags[strings.ReplaceAll(strings.ToLower(key), "_", "")] {
			continue // <tool_call>…</tool_call> wraps a call; it is no argument
		}
		close := strings.Index(text[m[1]:], "</"+key+">")
		if close < 0 || strings.Contains(text[m[1]:m[1]+close], "<"+key+">") {
			continue
		}
		add(key, xmlValue(text[m[1]:m[1]+close]), false, m[0], m[1]+close+len(key)+3, 2)
	}
	for _, re := range []*regexp.Regexp{flagPair, arrowPair, equalsPair} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			add(text[m[2]:m[3]], unquoteValue(text[m[4]:m[5]]), false, m[2], m[5], 3)
		}
	}
	for _, m := range spacedPair.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], unquoteValue(text[m[4]:m[5]]), false, m[2], m[5], 4)
	}
	if lines {
		for _, m := range colonPair.FindAllStringSubmatchIndex(text, -1) {
			v := text[m[4]:m[5]]
			if strings.HasPrefix(v, "{") || strings.HasPrefix(v, "//") {
				continue // an object's key, or a URL's scheme
			}
			add(text[m[2]:m[3]], unquoteValue(v), false, m[2], m[5], 4)
		}
	}
	slices.SortStableFunc(out, func(a, b pair) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.start - b.start
	})
	return out
}

// jsonPairs adds the keys of the JSON objects in text, or, for an object
// that is a call ({"name": …, "arguments": {…}}), of its arguments.
func jsonPairs(text string, add func(key, value string, isJSON bool, start, end, rank int)) {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			return
		}
		start := i + j
		end := closing(text, start, "{[", "}]")
		if end < 0 {
			end = len(text)
		}
		v, repaired, err := parseJSON(text[start:end])
		keys, obj, ok := orderedObject(v)
		if err != nil || !ok {
			i = start + 1
			continue
		}
		if cs := callsIn(v); len(cs) == 1 && cs[0].explicit {
			keys, obj, ok = orderedObject(cs[0].call.Arguments)
			if !ok {
				i = end
				continue
			}
		}
		rank := 0
		if repaired {
			rank = 5
		}
		for _, k := range keys {
			val := obj[k]
			var s string
			if json.Unmarshal(val, &s) == nil {
				add(k, s, false, start, end, rank)
			} else {
				add(k, string(val), true, start, end, rank)
			}
		}
		i = end
	}
}

// xmlValue is the text of an XML-ish argument, without the line breaks
// that set it apart.
func xmlValue(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	if strings.TrimSpace(s) != s && !strings.Contains(strings.TrimSpace(s), "\n") {
		s = strings.TrimSpace(s)
	}
	return s
}

// unquoteValue strips a value's quotes: a JSON string keeps its escapes'
// meaning; one whose escapes JSON does not know (c:\Users) keeps its
// backslashes as written.
func unquoteValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return v[1 : len(v)-1]
	}
	return strings.TrimRight(v, ",;")
}
