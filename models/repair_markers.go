package models

import (
	"regexp"
	"slices"
	"strings"
)

// More call syntaxes that name the tool outside the arguments:
//
//	Gemma 4:      <|tool_call>call:NAME{key:<|"|>value<|"|>,n:5}<tool_call|>
//	FunctionGemma: <start_function_call>call:NAME{key:<escape>value<escape>}<end_function_call>
//	ReAct:        Action: NAME
//	              Action Input: {…}   (or a bare value)
//	Qwen-Agent:   ✿FUNCTION✿: NAME
//	              ✿ARGS✿: {…}
//	Functionary:  >>>NAME
//	              {…}
//	Cline, Roo:   <read_file>
//	              <path>main.go</path>
//	              </read_file>
//
// Gemma's call:NAME and Cline's XML also appear without any wrapper, where
// prose could look the same; such calls count only if they name a tool on
// offer.

// gemmaString matches a string in Gemma's own quotes.
var gemmaString = regexp.MustCompile(`(?s)<\|"\|>(.*?)<\|"\|>|<escape>(.*?)<escape>`)

// gemmaCall rewrites Gemma's call:NAME{k:<|"|>v<|"|>} or call:NAME(k: v)
// as NAME{k:"v"}, which the JSON repair reads; ok is false when body is
// not one.
func gemmaCall(body string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(body), "call:")
	if !ok {
		return body, false
	}
	rest = gemmaString.ReplaceAllStringFunc(rest, func(m string) string {
		sub := gemmaString.FindStringSubmatch(m)
		return quoteJSON(sub[1] + sub[2])
	})
	rest = backtickValues(rest)
	// call:NAME(k: v): the arguments in parentheses, written as a dict's.
	if i := strings.IndexAny(rest, "({"); i > 0 && rest[i] == '(' && isIdent(strings.ReplaceAll(strings.ReplaceAll(rest[:i], ".", "_"), "-", "_")) {
		if end := matchParen(rest, i); end > 0 && !strings.Contains(rest[i:end], "=") {
			rest = rest[:i] + "{" + rest[i+1:end-1] + "}" + rest[end:]
		}
	}
	return rest, true
}

// backtickValues quotes values written in backticks (k:`a "b"`), as Gemma
// 4 sometimes writes long strings: a backtick after a colon opens one,
// and the last backtick before the next "," or "}" that follows one
// closes it.
func backtickValues(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, ":`")
		if i < 0 {
			i = strings.Index(s, ": `")
			if i >= 0 {
				i++
			}
		}
		if i < 0 {
			break
		}
		open := strings.IndexByte(s[i:], '`') + i
		end := -1
		for j := open + 1; j < len(s); j++ {
			if s[j] != '`' {
				continue
			}
			if k := strings.TrimLeft(s[j+1:], " \t\r\n"); k == "" || k[0] == ',' || k[0] == '}' || k[0] == ')' {
				end = j
				if k == "" || k[0] != ',' || !strings.Contains(k, ":`") && !strings.Contains(k, ": `") {
					// the value runs to its last closing backtick
					continue
				}
				break
			}
		}
		if end < 0 {
			break
		}
		b.WriteString(s[:open])
		b.WriteString(quoteJSON(s[open+1 : end]))
		s = s[end+1:]
	}
	b.WriteString(s)
	return b.String()
}

// gemmaBare finds call:NAME{ or call:NAME( outside any tag.
var gemmaBare = regexp.MustCompile(`(?:^|[\s>` + "`" + `])(call:[A-Za-z_][\w.\-]*\s*[{(])`)

// scanGemmaCalls finds Gemma's call:NAME{…} written without its tags.
func scanGemmaCalls(text string, taken func(int, int) bool) []span {
	if !strings.Contains(text, "call:") {
		return nil
	}
	var spans []span
	for _, m := range gemmaBare.FindAllStringSubmatchIndex(text, -1) {
		start, open := m[2], m[3]-1
		end := closing(text, open, "([{", ")]}")
		if end < 0 {
			end = len(text)
		}
		end = start + len(strings.TrimRight(text[start:end], " \t\r\n"))
		if t := endTokens.FindStringIndex(text[end:]); t != nil && strings.TrimSpace(text[end:end+t[0]]) == "" {
			end += t[1]
		}
		if taken(start, end) {
			continue
		}
		calls, _ := payloadCalls(text[start:end])
		for i := range calls {
			calls[i].explicit = false
		}
		if len(calls) == 0 {
			continue
		}
		spans = append(spans, span{start: start, end: end, path: RepairEnvelope, calls: calls, weak: true})
	}
	return spans
}

// actionMarks are the markers that put a tool's name on a line of its own
// and its arguments after it.
var actionMarks = []struct {
	needle string
	mark   *regexp.Regexp
}{
	{"Action Input", regexp.MustCompile("(?m)^[ \\t]*\\**Action\\**[ \\t]*:[ \\t]*`?([A-Za-z_][\\w.\\-]*)`?[ \\t]*\\r?\\n[ \\t]*\\**Action[ _]Input\\**[ \\t]*:[ \\t]*")},
	{"✿ARGS✿", regexp.MustCompile(`✿FUNCTION✿\s*:\s*([A-Za-z_][\w.\-]*)\s*✿ARGS✿\s*:\s*`)},
	{">>>", regexp.MustCompile(`(?m)^[ \t]*>>>[ \t]*([A-Za-z_][\w.\-]*)[ \t]*\r?\n[ \t]*`)},
}

// scanActions finds calls after the markers of actionMarks, outside code
// blocks. Arguments that are not JSON are a single value, given by
// position. A Python prompt (>>> name) looks like Functionary's marker, so
// those calls count only if they name a tool on offer.
func scanActions(text string, taken func(int, int) bool) []span {
	var spans []span
	var code func(int) bool
	for _, a := range actionMarks {
		if !strings.Contains(text, a.needle) {
			continue
		}
		if code == nil {
			code = codeBlocks(text)
		}
		weak := a.needle == ">>>"
		for _, m := range a.mark.FindAllStringSubmatchIndex(text, -1) {
			name := text[m[2]:m[3]]
			if weak && name == "all" || code(m[0]) {
				continue // Functionary's marker for plain text, or an example
			}
			body := text[m[1]:]
			rc := rawCall{call: ToolCall{Name: name}, explicit: !weak}
			s := span{start: m[0], path: RepairEnvelope, weak: weak}
			inner := strings.TrimPrefix(strings.TrimPrefix(body, "```json"), "```")
			lead := len(body) - len(inner)
			inner = strings.TrimLeft(inner, " \t\r\n")
			lead = len(body) - len(inner)
			switch {
			case strings.HasPrefix(inner, "{"):
				end := matchClose(inner, 0)
				v, repaired, err := parseJSON(inner[:end])
				if err != nil {
					s.broken, s.brokenTool = "its arguments could not be read: "+err.Error(), name
				} else {
					rc.call.Arguments, rc.fixes = argsValue(v)
					if repaired {
						rc.fixes = append([]string{FixJSON}, rc.fixes...)
						rc.truncated = endsInString(inner[:end])
					}
				}
				s.end = m[1] + lead + end
				if c := strings.Index(body[lead+end:], "```"); c >= 0 && strings.TrimSpace(body[lead+end:lead+end+c]) == "" {
					s.end += c + 3
				}
			default:
				line, _, _ := strings.Cut(inner, "\n")
				line = strings.TrimSpace(line)
				s.end = m[1] + lead + len(line)
				line = strings.Trim(line, "`\"'")
				if line == "" || line == "{}" || strings.EqualFold(line, "none") {
					rc.call.Arguments = []byte("{}")
				} else {
					rc.call.Arguments, rc.fixes = argsValue([]byte(quoteJSON(line)))
				}
			}
			if s.broken == "" {
				s.calls = []rawCall{rc}
			}
			if !taken(s.start, s.end) {
				spans = append(spans, s)
			}
		}
	}
	return spans
}

// xmlToolOpen matches a tag named like a tool whose first child is a tag:
// <read_file>\n<path>, as Cline and Roo write calls.
var xmlToolOpen = regexp.MustCompile(`<([A-Za-z_][\w\-]*)>\s*<([A-Za-z_][\w\-]*)>`)

// scanToolXML finds calls written as a tag named after the tool with one
// tag per argument. Outside code blocks only, and only for tools on offer
// (the spans are weak): HTML looks the same.
func scanToolXML(text string, taken func(int, int) bool) []span {
	if !strings.Contains(text, "</") {
		return nil
	}
	var spans []span
	code := codeBlocks(text)
	for i := 0; i < len(text); {
		m := xmlToolOpen.FindStringSubmatchIndex(text[i:])
		if m == nil {
			break
		}
		start, name := i+m[0], text[i+m[2]:i+m[3]]
		end := len(text)
		bodyEnd, closed := end, false
		if c := strings.Index(text[i+m[1]:], "</"+name+">"); c >= 0 {
			bodyEnd, closed = i+m[1]+c, true
			end = bodyEnd + len("</"+name+">")
		}
		if code(start) || taken(start, end) {
			i = start + 1
			continue
		}
		kv, ok := xmlChildren(text[start+len("<"+name+">") : bodyEnd])
		if !ok {
			i = start + 1
			continue
		}
		// Cline's own bookkeeping, which no tool here takes.
		kv = slices.DeleteFunc(kv, func(p [2]string) bool { return p[0] == "requires_approval" || p[0] == "task_progress" })
		// A call whose tag was never closed was cut off: its last
		// argument may be short of what the model meant.
		rc := rawCall{call: ToolCall{Name: name, Arguments: xmlStrings(kv)}, truncated: !closed}
		spans = append(spans, span{start: start, end: end, path: RepairXML, calls: []rawCall{rc}, weak: true})
		i = end
	}
	return spans
}

// xmlChildren reads body as a run of <key>value</key> tags and nothing
// else. A last tag left open (a reply cut short) runs to the end.
func xmlChildren(body string) ([][2]string, bool) {
	var kv [][2]string
	s := strings.TrimSpace(body)
	for s != "" {
		if s[0] != '<' {
			return nil, false
		}
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			return nil, false
		}
		key := s[1:gt]
		if !isIdent(strings.ReplaceAll(key, "-", "_")) {
			return nil, false
		}
		s = s[gt+1:]
		c := strings.Index(s, "</"+key+">")
		val := s
		if c >= 0 {
			val, s = s[:c], strings.TrimSpace(s[c+len("</"+key+">"):])
		} else {
			s = ""
		}
		val = strings.TrimPrefix(strings.TrimPrefix(val, "\r"), "\n")
		val = strings.TrimSuffix(strings.TrimSuffix(val, "\n"), "\r")
		kv = append(kv, [2]string{key, val})
	}
	return kv, len(kv) > 0
}

// xmlStrings writes name/value pairs as a JSON object of strings; the
// schema check coerces numbers and booleans.
func xmlStrings(kv [][2]string) []byte { return pairsObject(kv, quoteJSON) }

// leftoverHeaders are the role and channel headers of Llama and gpt-oss
// (harmony), and leftoverTokens a model's other special tokens and empty
// wrappers, left in the text once its calls are taken out; the user is
// not shown them.
var (
	leftoverHeaders = regexp.MustCompile(`<\|start_header_id\|>\w*<\|end_header_id\|>|(?:<\|start\|>\s*\w+\s*)?<\|channel\|>\s*\w+[^<\n]{0,60}<\|message\|>`)
	leftoverTokens  = regexp.MustCompile(`<\|[\w\-]{1,40}\|>|<｜[^｜<>\n]{1,40}｜>|</?s>|<(?:tool_use|tool|tools|think|function_calls?|function_invocation)>\s*</(?:tool_use|tool|tools|think|function_calls?|function_invocation)>|</?(?:tool_calls?|function_calls?|function_invocation|function)>`)
)

// dropLeftovers takes leftover headers and tokens out of text, and the
// separators left between calls ("; " in Llama's {…}; {…}).
func dropLeftovers(text string) string {
	text = leftoverTokens.ReplaceAllString(leftoverHeaders.ReplaceAllString(text, ""), "\n")
	if strings.Trim(text, " \t\r\n;,") == "" {
		return ""
	}
	return text
}
