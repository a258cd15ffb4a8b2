package models

import (
	"regexp"
	"strings"
)

// A scanner finds call text of one shape in a reply. taken reports whether
// a stretch was already claimed by an earlier scanner.
type scanner func(text string, taken func(start, end int) bool) []span

// scanners run in this order: explicit markers first, then fences, then
// bare JSON, then a reply that is nothing but Python call syntax.
var scanners = []scanner{scanEnvelopes, scanActions, scanTags, scanFunctionTags, scanInvokes, scanMistral, scanPythonTag, scanFunctools, scanToolXML, scanGemmaCalls, scanFences, scanBare, scanPythonic, scanPythonicLines, scanCLI}

var (
	// Tags around calls: <tool_call>, <|tool_call|> (Granite, Phi),
	// <function_call>, <tool_calls>, <toolcall>, <|tool_call_start|>
	// (LFM2), <tools>, <|tool_call>…<tool_call|> (Gemma 4),
	// <start_function_call> (FunctionGemma).
	tagOpen  = regexp.MustCompile(`(?i)<\|?(?:tool_?calls?|function_?calls?)(?:_start|_begin)?\|?>|<tools>|<start_function_call>`)
	tagClose = regexp.MustCompile(`(?i)<\|?/(?:tool_?calls?|function_?calls?)\|?>|<\|end_?tool_?calls?\|>|<\|?(?:tool_?calls?|function_?calls?)_(?:end|stop)\|?>|</tools>|<tool_call\|>|<end_function_call>`)

	funcOpen  = regexp.MustCompile(`<function=([\w.\-]+)>`)
	funcClose = regexp.MustCompile(`</function>`)
	paramOpen = regexp.MustCompile(`<parameter=([\w.\-]+)>`)
	// What ends a <parameter=…> value: its closing tag, else the next
	// parameter or the end of the call (Qwen3-Coder leaves them open).
	paramEnd = regexp.MustCompile(`</parameter>|<parameter=|</?function|</tool_call>`)

	mistralCall = regexp.MustCompile(`\[TOOL_CALLS\]`)
	mistralArgs = regexp.MustCompile(`^\s*([\w.\-]+)\s*(?:\[CALL_ID\]\s*[\w\-]*\s*)?(?:\[ARGS\]|\{)`)

	pythonTag = regexp.MustCompile(`<\|python_tag\|>`)
	// Llama's end-of-message tokens, which may trail a call.
	endTokens = regexp.MustCompile(`<\|(?:eom_id|eot_id|end|im_end)\|>|</s>`)

	fence = regexp.MustCompile("(?s)```[ \t]*([\\w-]*)[ \t]*\\n(.*?)(?:\\n[ \t]*```|$)")
	// A JSON object that looks like a call: its first key names a tool.
	// Its arguments may come first, or alone.
	callStart = regexp.MustCompile(`^\{\s*["']?(?:name|tool_name|function_name|tool|function|action|type|tool_calls|function_call|tool_call|arguments|args|parameters|params|action_input|tool_input)["']?\s*:`)
	// The name a broken call gives, if it gives one.
	brokenName = regexp.MustCompile(`["']?(?:name|tool_name|tool|function)["']?\s*:\s*["']([\w.\-]+)`)
)

// scanTags finds calls inside tags. A tag left open runs to the next one
// or to the end of the reply.
func scanTags(text string, taken func(int, int) bool) []span {
	var spans []span
	var opens [][]int
	for _, o := range tagOpen.FindAllStringIndex(text, -1) {
		// <tool_call|> is Gemma 4's closing tag, not an opening one.
		if text[o[0]+1] != '|' && text[o[1]-2] == '|' {
			continue
		}
		opens = append(opens, o)
	}
	for i, o := range opens {
		end, bodyEnd := len(text), len(text)
		if i+1 < len(opens) {
			end, bodyEnd = opens[i+1][0], opens[i+1][0]
		}
		if c := tagClose.FindStringIndex(text[o[1]:end]); c != nil {
			bodyEnd, end = o[1]+c[0], o[1]+c[1]
		}
		if taken(o[0], end) {
			continue
		}
		body := text[o[1]:bodyEnd]
		s := span{start: o[0], end: end, path: RepairTagged}
		if strings.Contains(body, "<function=") {
			s.calls, s.broken = functionTagCalls(body)
		} else {
			s.calls, s.broken = payloadCalls(body)
		}
		markBroken(&s, body, "the text after the tool call tag")
		spans = append(spans, s)
	}
	// A closing tag with no opening one: the model dropped the opener.
	if len(opens) == 0 {
		if c := tagClose.FindStringIndex(text); c != nil && !taken(0, c[1]) {
			body := text[:c[0]]
			if i := strings.IndexAny(body, "{["); i >= 0 {
				s := span{start: i, end: c[1], path: RepairTagged}
				s.calls, s.broken = payloadCalls(body[i:])
				markBroken(&s, body[i:], "the text before </tool_call>")
				spans = append(spans, s)
			}
		}
	}
	return spans
}

// payloadCalls reads JSON calls, or Python call syntax, from the inside of
// an explicit call marker.
func payloadCalls(body string) ([]rawCall, string) {
	body = strings.TrimSpace(endTokens.ReplaceAllString(body, ""))
	body = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(body, "```json"), "```"))
	if body == "" {
		return nil, "it is empty"
	}
	body, _ = gemmaCall(body)
	if body == "" {
		return nil, "it names no tool" // call: and nothing after it
	}
	if body[0] != '{' {
		if calls, ok := pythonicCalls(body); ok {
			return calls, ""
		}
		if calls := xmlCalls(body); len(calls) > 0 {
			return calls, ""
		}
		// read_file {"path": …}, functions.read_file:{…}: the name
		// outside the JSON.
		if m := nameThenJSON.FindStringSubmatchIndex(body); m != nil {
			open := m[1] - 1
			v, repaired, err := parseJSON(body[open:matchClose(body, open)])
			if err == nil && len(v) > 0 && v[0] == '{' {
				if cs := callsIn(v); len(cs) == 1 && cs[0].call.Name != "" {
					return cs, "" // the JSON names the call itself
				}
				rc := rawCall{call: ToolCall{Name: body[m[2]:m[3]], Arguments: v}, explicit: true}
				if repaired {
					rc.fixes = []string{FixJSON}
				}
				return []rawCall{rc}, ""
			}
		}
		// [read_file(path="a.go")] with words around it (LFM2).
		if calls, _, _, ok := pythonicIn(body); ok {
			return calls, ""
		}
		if i := strings.IndexAny(body, "{["); i >= 0 {
			body = body[i:]
		}
	}
	return decodePayload(body)
}

// nameThenJSON matches a tool name followed by a JSON object.
var nameThenJSON = regexp.MustCompile(`^([A-Za-z_][\w.\-]*?)(?::\d+)?\s*[:\n]?\s*\{`)

// markBroken fills in why a span that had to hold a call holds none.
func markBroken(s *span, body, where string) {
	if len(s.calls) > 0 {
		s.broken = ""
		return
	}
	s.broken = where + " could not be read as a call: " + s.broken
	if m := brokenName.FindStringSubmatch(body); m != nil {
		s.brokenTool = m[1]
	}
}

// scanFunctionTags finds <function=name>{json}</function> (Llama 3.1) and
// <function=name><parameter=k>v</parameter></function> (Qwen3-Coder).
func scanFunctionTags(text string, taken func(int, int) bool) []span {
	var spans []span
	opens := funcOpen.FindAllStringIndex(text, -1)
	for i, o := range opens {
		end := len(text)
		if i+1 < len(opens) {
			end = opens[i+1][0]
		}
		if c := funcClose.FindStringIndex(text[o[1]:end]); c != nil {
			end = o[1] + c[1]
		}
		if taken(o[0], end) {
			continue
		}
		s := span{start: o[0], end: end, path: RepairFunctionTag}
		s.calls, s.broken = functionTagCalls(text[o[0]:end])
		markBroken(&s, text[o[0]:end], "the <function=…> call")
		spans = append(spans, s)
	}
	return spans
}

// functionTagCalls reads the <function=…> calls in body.
func functionTagCalls(body string) ([]rawCall, string) {
	var calls []rawCall
	why := "it has no <function=name> tag"
	opens := funcOpen.FindAllStringSubmatchIndex(body, -1)
	for i, o := range opens {
		name := body[o[2]:o[3]]
		end := len(body)
		if i+1 < len(opens) {
			end = opens[i+1][0]
		}
		inner := body[o[1]:end]
		if c := funcClose.FindStringIndex(inner); c != nil {
			inner = inner[:c[0]]
		}
		rc := rawCall{call: ToolCall{Name: name}, explicit: true}
		if params := paramTags(inner); len(params) > 0 {
			var b strings.Builder
			b.WriteByte('{')
			for j, p := range params {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(quoteJSON(p[1]))
				b.WriteByte(':')
				b.WriteString(paramValue(p[2]))
			}
			b.WriteByte('}')
			rc.call.Arguments = []byte(b.String())
		} else if strings.TrimSpace(inner) == "" {
			rc.call.Arguments = []byte("{}")
		} else {
			v, repaired, err := parseJSON(inner[max(strings.Index(inner, "{"), 0):])
			if err != nil {
				why = err.Error()
				continue
			}
			args, fixes := argsValue(v)
			rc.call.Arguments, rc.fixes = args, fixes
			if repaired {
				rc.fixes = append([]string{FixJSON}, rc.fixes...)
			}
		}
		calls = append(calls, rc)
	}
	if len(calls) > 0 {
		return calls, ""
	}
	return nil, why
}

// paramTags returns the name and value of each <parameter=…> tag in s.
func paramTags(s string) [][3]string {
	var out [][3]string
	opens := paramOpen.FindAllStringSubmatchIndex(s, -1)
	for _, o := range opens {
		rest := s[o[1]:]
		end := len(rest)
		if e := paramEnd.FindStringIndex(rest); e != nil {
			end = e[0]
		}
		out = append(out, [3]string{"", s[o[2]:o[3]], strings.TrimSpace(rest[:end])})
	}
	return out
}

// paramValue is a <parameter> tag's text as JSON: a number, true or false
// stays what it is; anything else is a string, JSON text too (the content
// of a .json file a model writes), which the schema check turns into an
// object or a list where the tool takes one.
func paramValue(s string) string {
	if (isNumber(s) || s == "true" || s == "false") && jsonValid(s) {
		return s
	}
	return quoteJSON(s)
}

// scanMistral finds [TOOL_CALLS] followed by a JSON list of calls, or by
// name[ARGS]{…} as newer Mistral models write them.
func scanMistral(text string, taken func(int, int) bool) []span {
	var spans []span
	marks := mistralCall.FindAllStringIndex(text, -1)
	for i, m := range marks {
		limit := len(text)
		if i+1 < len(marks) {
			limit = marks[i+1][0]
		}
		body := text[m[1]:limit]
		s := span{start: m[0], path: RepairMistral}
		if a := mistralArgs.FindStringSubmatchIndex(body); a != nil {
			if body[a[1]-1] == '{' {
				a[1]-- // name{…}: the brace starts the arguments
			}
			rest := body[a[1]:]
			j := strings.Index(rest, "{")
			end := a[1]
			if j >= 0 {
				end = a[1] + matchClose(rest, j)
			}
			rc := rawCall{call: ToolCall{Name: body[a[2]:a[3]], Arguments: []byte("{}")}, explicit: true}
			if j >= 0 {
				v, repaired, err := parseJSON(rest[j : end-a[1]])
				if err != nil {
					s.broken = err.Error()
				} else {
					rc.call.Arguments, rc.fixes = argsValue(v)
					if repaired {
						rc.fixes = append([]string{FixJSON}, rc.fixes...)
					}
				}
			}
			if s.broken == "" {
				s.calls = []rawCall{rc}
			}
			s.end = m[1] + end
		} else {
			j := strings.IndexAny(body, "[{")
			end := len(body)
			if j >= 0 {
				end = matchClose(body, j)
				s.calls, s.broken = decodePayload(body[j:end])
			} else {
				s.broken = "no JSON follows it"
			}
			s.end = m[1] + end
		}
		if taken(s.start, s.end) {
			continue
		}
		markBroken(&s, body, "the text after [TOOL_CALLS]")
		spans = append(spans, s)
	}
	return spans
}

// scanPythonTag finds <|python_tag|> followed by JSON calls (separated by
// ";" when there are several) or Python call syntax.
func scanPythonTag(text string, taken func(int, int) bool) []span {
	var spans []span
	marks := pythonTag.FindAllStringIndex(text, -1)
	for i, m := range marks {
		end := len(text)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		if e := endTokens.FindStringIndex(text[m[1]:end]); e != nil {
			end = m[1] + e[1]
		}
		if taken(m[0], end) {
			continue
		}
		s := span{start: m[0], end: end, path: RepairPythonTag}
		s.calls, s.broken = payloadCalls(text[m[1]:end])
		markBroken(&s, text[m[1]:end], "the text after <|python_tag|>")
		spans = append(spans, s)
	}
	return spans
}

// Fence languages a call may be written in; tool_code holds Python syntax
// (Gemma's habit).
var callFences = map[string]bool{"": true, "json": true, "jsonc": true, "tool": true, "tool_call": true, "tool_calls": true, "function": true, "tool_code": true}

// scanFences finds calls in fenced blocks.
func scanFences(text string, taken func(int, int) bool) []span {
	var spans []span
	for _, m := range fence.FindAllStringSubmatchIndex(text, -1) {
		lang := strings.ToLower(text[m[2]:m[3]])
		if !callFences[lang] || taken(m[0], m[1]) {
			continue
		}
		body := strings.TrimSpace(text[m[4]:m[5]])
		s := span{start: m[0], end: m[1], path: RepairFenced, weak: lang == "" || lang == "json" || lang == "jsonc"}
		explicit := lang == "tool" || lang == "tool_call" || lang == "tool_calls" || lang == "function" || lang == "tool_code"
		switch {
		case lang == "tool_code" || (body != "" && body[0] != '{' && body[0] != '['):
			calls, ok := pythonicCalls(body)
			if !ok && !explicit {
				continue
			}
			s.calls, s.path = calls, RepairPythonic
			if !ok {
				s.broken = "not a call"
			}
		case explicit || callStart.MatchString(body) || strings.HasPrefix(body, "["):
			s.calls, s.broken = decodePayload(body)
			if len(s.calls) == 0 && !explicit && !namesCall(body) {
				continue // JSON that is not meant as a call
			}
		default:
			continue
		}
		markBroken(&s, body, "the fenced call")
		spans = append(spans, s)
	}
	return spans
}

// namesCall reports whether broken JSON still plainly meant to call a tool:
// it starts like a call and gives the call's name.
func namesCall(body string) bool {
	return callStart.MatchString(strings.TrimSpace(body)) && brokenName.MatchString(body)
}

// maxBareFailures bounds the work spent on call-like JSON that does not
// read as a call.
const maxBareFailures = 4

// scanBare finds JSON objects in running text that look like calls, and
// arrays of them.
func scanBare(text string, taken func(int, int) bool) []span {
	var spans []span
	failed := 0
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], "{[")
		if j < 0 {
			break
		}
		start := i + j
		obj := start
		if text[start] == '[' {
			k := start + 1
			for k < len(text) && strings.ContainsRune(" \t\r\n", rune(text[k])) {
				k++
			}
			if k >= len(text) || text[k] != '{' {
				i = start + 1
				continue
			}
			obj = k
		}
		if !callStart.MatchString(text[obj:]) {
			i = start + 1
			continue
		}
		end := matchClose(text, start)
		if taken(start, end) {
			i = end
			continue
		}
		s := span{start: start, end: end, path: RepairBare, weak: true}
		s.calls, s.broken = decodePayload(text[start:end])
		if len(s.calls) == 0 && !namesCall(text[obj:end]) {
			// A call may still start inside what failed to read, but after
			// a few failures the rest is taken for noise: every attempt
			// costs a repair of the whole tail.
			failed++
			i = start + 1
			if failed >= maxBareFailures {
				i = end
			}
			continue
		}
		markBroken(&s, text[start:end], "the JSON call")
		spans = append(spans, s)
		i = end
	}
	return spans
}

// scanPythonic takes a reply that is nothing but Python call syntax —
// read_file(path="a.go"), or a list of such calls as Llama 3.2 writes them
// — as calls.
func scanPythonic(text string, taken func(int, int) bool) []span {
	body := strings.TrimSpace(endTokens.ReplaceAllString(text, ""))
	if body == "" || taken(0, len(text)) {
		return nil
	}
	calls, ok := pythonicCalls(body)
	if !ok {
		return nil
	}
	for i := range calls {
		calls[i].explicit = false // prose can look like this too
	}
	return []span{{start: 0, end: len(text), path: RepairPythonic, calls: calls, weak: true}}
}
