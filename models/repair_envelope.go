package models

import (
	"regexp"
	"slices"
	"strings"
)

// Envelopes are the call syntaxes that put the tool's name in special
// tokens and its arguments after them, as JSON:
//
//	DeepSeek R1/V3:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//	                 ```json {…} ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//	DeepSeek V3.1:   <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>
//	Kimi K2:         <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>
//	gpt-oss harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>
//
// Servers that do not know the model's parser leave these in the content.
var envelopes = []struct {
	// needles: the regexp runs only on text holding one of them (a
	// regexp without a literal prefix is slow on long replies).
	needles []string
	mark    *regexp.Regexp
	// name returns the tool's name from the mark's submatches.
	name func(m []string) string
}{
	{[]string{"tool▁sep", "tool_sep"}, regexp.MustCompile(`(?:<[|｜]tool[_▁]calls[_▁]begin[|｜]>\s*)?<[|｜]tool[_▁]call[_▁]begin[|｜]>\s*([\w.\-]*)\s*<[|｜]tool[_▁]sep[|｜]>\s*([\w.\-]*)`),
		func(m []string) string {
			if m[2] != "" && (m[1] == "" || m[1] == "function") {
				return m[2]
			}
			return m[1]
		}},
	{[]string{"<|tool_call_argument_begin|>"}, regexp.MustCompile(`(?:<\|tool_calls_section_begin\|>\s*)?<\|tool_call_begin\|>\s*([\w.\-]+?)(?::\d+)?\s*<\|tool_call_argument_begin\|>`),
		func(m []string) string { return m[1] }},
	{[]string{"<|message|>"}, regexp.MustCompile(`(?:<\|start\|>\s*assistant\s*)?(?:<\|channel\|>\s*\w+\s*)?\bto=([\w.\-]+)\s*(?:<\|channel\|>\s*\w+\s*)?(?:<\|constrain\|>\s*)?(?:(?:json|code)\s*)?<\|message\|>`),
		func(m []string) string { return m[1] }},
}

// envelopeTail matches what may close an envelope after its JSON: a fence
// and the end tokens.
var envelopeTail = regexp.MustCompile("^\\s*(?:```\\s*)?(?:<[|｜][^|｜<>]{0,40}[|｜]>\\s*)*")

// scanEnvelopes finds calls in the envelopes above.
func scanEnvelopes(text string, taken func(int, int) bool) []span {
	var spans []span
	for _, e := range envelopes {
		if !slices.ContainsFunc(e.needles, func(n string) bool { return strings.Contains(text, n) }) {
			continue
		}
		marks := e.mark.FindAllStringSubmatchIndex(text, -1)
		for i, m := range marks {
			limit := len(text)
			if i+1 < len(marks) {
				limit = marks[i+1][0]
			}
			sub := make([]string, len(m)/2)
			for k := range sub {
				if m[2*k] >= 0 {
					sub[k] = text[m[2*k]:m[2*k+1]]
				}
			}
			name := strings.TrimPrefix(e.name(sub), "functions.")
			s := span{start: m[0], path: RepairEnvelope}
			body := text[m[1]:limit]
			j := strings.Index(body, "{")
			// The arguments follow at once, perhaps in a fence.
			if lead := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body[:max(j, 0)]), "```json")); j < 0 || lead != "" && lead != "```" {
				s.end = m[1]
				s.broken, s.brokenTool = "no JSON arguments follow the tool name", name
				if !taken(s.start, s.end) {
					spans = append(spans, s)
				}
				continue
			}
			end := matchClose(body, j)
			rc := rawCall{call: ToolCall{Name: name}, explicit: true}
			v, repaired, err := parseJSON(body[j:end])
			if err != nil {
				s.broken, s.brokenTool = "its arguments could not be read: "+err.Error(), name
			} else {
				rc.call.Arguments, rc.fixes = argsValue(v)
				if repaired {
					rc.fixes = append([]string{FixJSON}, rc.fixes...)
					rc.truncated = endsInString(body[j:end])
				}
				s.calls = []rawCall{rc}
			}
			tail := envelopeTail.FindStringIndex(body[end:])
			s.end = m[1] + end + tail[1]
			if taken(s.start, s.end) {
				continue
			}
			spans = append(spans, s)
		}
	}
	return spans
}

// functools is Phi-4-mini's call marker: functools[{"name": …}, …].
var functools = regexp.MustCompile(`functools\s*\[`)

// scanFunctools finds functools[…] lists of calls.
func scanFunctools(text string, taken func(int, int) bool) []span {
	var spans []span
	marks := functools.FindAllStringIndex(text, -1)
	for i, m := range marks {
		limit := len(text)
		if i+1 < len(marks) {
			limit = marks[i+1][0]
		}
		open := m[1] - 1
		end := matchClose(text[:limit], open)
		if taken(m[0], end) {
			continue
		}
		s := span{start: m[0], end: end, path: RepairTagged}
		s.calls, s.broken = decodePayload(text[open:end])
		markBroken(&s, text[open:end], "the list after functools")
		spans = append(spans, s)
	}
	return spans
}

// pyList matches the start of a list of Python-style calls in prose.
var pyList = regexp.MustCompile(`\[\s*[A-Za-z_][\w.\-]*\s*\(`)

// pythonicIn reads the first list of Python-style calls in text that has
// prose around it; start and end bound the list.
func pythonicIn(text string) (calls []rawCall, start, end int, ok bool) {
	m := pyList.FindStringIndex(text)
	if m == nil {
		return nil, 0, 0, false
	}
	end = closing(text, m[0], "([{", ")]}")
	if end < 0 {
		return nil, 0, 0, false
	}
	calls, ok = pythonicCalls(text[m[0]:end])
	return calls, m[0], end, ok
}

// scanPythonicLines finds Python-style calls in prose: a list of calls
// anywhere ([read_file(path="a.go")]), or a line that is nothing but calls.
// Prose can look like this, so the calls count only if they name a tool
// on offer.
func scanPythonicLines(text string, taken func(int, int) bool) []span {
	var spans []span
	for i := 0; i < len(text); {
		calls, start, end, ok := pythonicIn(text[i:])
		if calls == nil && !ok && start == 0 && end == 0 {
			break
		}
		if ok && !taken(i+start, i+end) {
			for k := range calls {
				calls[k].explicit = false
			}
			spans = append(spans, span{start: i + start, end: i + end, path: RepairPythonic, calls: calls, weak: true})
			i += end
			continue
		}
		i += start + 1
	}
	code := codeBlocks(text)
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.Trim(strings.TrimSpace(line), "`")
		start := off + strings.Index(line, strings.TrimSpace(line))
		off += len(line)
		if body == "" || code(start) || !pyCall.MatchString(body) || taken(start, start+len(strings.TrimSpace(line))) {
			continue
		}
		calls, ok := pythonicCalls(body)
		if !ok {
			continue
		}
		for k := range calls {
			calls[k].explicit = false
		}
		spans = append(spans, span{start: start, end: start + len(strings.TrimSpace(line)), path: RepairPythonic, calls: calls, weak: true})
	}
	return spans
}

// cliLine matches a call written like a command line: a name, then
// key=value or --key value pairs (read_file path="a.go").
var (
	cliLine = regexp.MustCompile(`^([A-Za-z_][\w.\-]*)((?:\s+(?:--?)?[A-Za-z_]\w*(?:\s*[=:]\s*|\s+)(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+))+)\s*$`)
	cliArg  = regexp.MustCompile(`(?:--?)?([A-Za-z_]\w*)(?:\s*[=:]\s*|\s+)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+)`)
)

// scanCLI finds lines that write a call like a command line. Shell
// commands look the same, so a line counts only if every argument has a
// name (key=value, --key value), at least one uses "=" or ":", and the
// name is a tool on offer.
func scanCLI(text string, taken func(int, int) bool) []span {
	var spans []span
	code := codeBlocks(text)
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSpace(line)
		start := off + strings.Index(line, trimmed)
		off += len(line)
		if code(start) {
			continue
		}
		body := strings.Trim(trimmed, "`")
		body = strings.TrimSpace(strings.TrimPrefix(body, "$ "))
		m := cliLine.FindStringSubmatch(body)
		if m == nil || !strings.ContainsAny(m[2], "=:") && !strings.Contains(m[2], "--") || taken(start, start+len(trimmed)) {
			continue
		}
		var b strings.Builder
		b.WriteByte('{')
		for i, a := range cliArg.FindAllStringSubmatch(m[2], -1) {
			if i > 0 {
				b.WriteByte(',')
			}
			v, err := pythonValue(a[2])
			if err != nil || (a[2][0] != '"' && a[2][0] != '\'' && !isNumber(a[2]) && a[2] != "true" && a[2] != "false") {
				v = []byte(quoteJSON(a[2]))
			}
			b.WriteString(quoteJSON(a[1]))
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
		if !jsonValid(b.String()) {
			continue
		}
		spans = append(spans, span{start: start, end: start + len(trimmed), path: RepairCLI, weak: true,
			calls: []rawCall{{call: ToolCall{Name: m[1], Arguments: []byte(b.String())}}}})
	}
	return spans
}

// codeBlocks reports whether a position of text lies in a fenced block of
// code (```go, ```python, ```bash …): lines there are examples, not calls.
func codeBlocks(text string) func(pos int) bool {
	var blocks [][2]int
	for _, m := range fence.FindAllStringSubmatchIndex(text, -1) {
		if lang := strings.ToLower(text[m[2]:m[3]]); !callFences[lang] {
			blocks = append(blocks, [2]int{m[0], m[1]})
		}
	}
	return func(pos int) bool {
		for _, b := range blocks {
			if pos >= b[0] && pos < b[1] {
				return true
			}
		}
		return false
	}
}

// XML calls: GLM's <arg_key>/<arg_value> pairs after the name, and the
// <invoke name="…"><parameter name="…">…</parameter></invoke> shape
// (MiniMax, and models distilled from Claude).
var (
	argPair     = regexp.MustCompile(`(?s)<arg_key>\s*(.*?)\s*</arg_key>\s*<arg_value>\s*(.*?)\s*(?:</arg_value>|$)`)
	invokeOpen  = regexp.MustCompile(`<invoke\s+name="([^"]+)"\s*>`)
	invokeParam = regexp.MustCompile(`(?s)<parameter\s+name="([^"]+)"\s*>(.*?)(?:</parameter>|$)`)
)

// xmlCalls reads the XML call shapes above from body.
func xmlCalls(body string) []rawCall {
	var calls []rawCall
	if strings.Contains(body, "<arg_key>") {
		name := strings.TrimSpace(body[:strings.Index(body, "<arg_key>")])
		if isIdent(strings.ReplaceAll(strings.ReplaceAll(name, ".", "_"), "-", "_")) {
			var kv [][2]string
			for _, p := range argPair.FindAllStringSubmatch(body, -1) {
				kv = append(kv, [2]string{p[1], p[2]})
			}
			calls = append(calls, rawCall{call: ToolCall{Name: name, Arguments: xmlArgs(kv)}, explicit: true})
		}
	}
	opens := invokeOpen.FindAllStringSubmatchIndex(body, -1)
	for i, o := range opens {
		end := len(body)
		if i+1 < len(opens) {
			end = opens[i+1][0]
		}
		inner := body[o[1]:end]
		if c := strings.Index(inner, "</invoke>"); c >= 0 {
			inner = inner[:c]
		}
		var kv [][2]string
		for _, p := range invokeParam.FindAllStringSubmatch(inner, -1) {
			kv = append(kv, [2]string{p[1], strings.TrimSpace(p[2])})
		}
		calls = append(calls, rawCall{call: ToolCall{Name: body[o[2]:o[3]], Arguments: xmlArgs(kv)}, explicit: true})
	}
	return calls
}

// xmlArgs writes name/value pairs as a JSON object, values as
// <parameter=…> values are (paramValue).
func xmlArgs(kv [][2]string) []byte { return pairsObject(kv, paramValue) }

// pairsObject writes name/value pairs as a JSON object, each value as
// value writes it.
func pairsObject(kv [][2]string, value func(string) string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range kv {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quoteJSON(p[0]))
		b.WriteByte(':')
		b.WriteString(value(p[1]))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// invokeStart finds <invoke name="…"> calls outside any wrapper.
var invokeStart = regexp.MustCompile(`<invoke\s+name="[^"]+"\s*>`)

// scanInvokes finds <invoke> calls that no tag wraps (a wrapper left off,
// or a lone line before them).
func scanInvokes(text string, taken func(int, int) bool) []span {
	var spans []span
	marks := invokeStart.FindAllStringIndex(text, -1)
	for i, m := range marks {
		end := len(text)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		if c := strings.Index(text[m[0]:end], "</invoke>"); c >= 0 {
			end = m[0] + c + len("</invoke>")
		}
		if taken(m[0], end) {
			continue
		}
		s := span{start: m[0], end: end, path: RepairTagged}
		s.calls = xmlCalls(text[m[0]:end])
		markBroken(&s, text[m[0]:end], "the <invoke> call")
		spans = append(spans, s)
	}
	return spans
}
