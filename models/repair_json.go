package models

import (
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
