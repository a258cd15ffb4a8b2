package models

import (
	"strings"
	"testing"
)

// adversarial are replies built to make a careless parser slow: deep
// nesting, thousands of markers, unclosed strings. Each must be handled in
// about linear time.
var adversarial = map[string]string{
	"deep brackets":         strings.Repeat("{", 5000),
	"nested call starts":    strings.Repeat(`{"name":`, 2000),
	"open tags":             strings.Repeat("<tool_call>", 2000),
	"TOOL_CALLS marks":      strings.Repeat("[TOOL_CALLS]", 2000),
	"TOOL_CALLS ARGS":       strings.Repeat("[TOOL_CALLS]a[ARGS]{", 2000),
	"python tags":           strings.Repeat("<|python_tag|>", 2000),
	"open fences":           strings.Repeat("```json\n{\"name\":\n", 1000),
	"stray quotes":          `{"name": "` + strings.Repeat(`"a`, 5000),
	"open parentheses":      strings.Repeat("a(", 3000),
	"long python list":      "[" + strings.Repeat("a(b=1),", 3000) + "]",
	"open lists":            strings.Repeat("[", 5000),
	"function tags":         strings.Repeat("<function=a>", 2000),
	"many bare calls":       strings.Repeat(`{"name": "read_file", "arguments": {"path": "a"}} `, 500),
	"backslashes":           `{"name": "` + strings.Repeat(`\`, 5000),
	"single-quoted starts":  strings.Repeat(`{'name': '`, 2000),
	"open tagged calls":     strings.Repeat(`<tool_call>{"name": "x", `, 1000),
	"parameter tags":        "<function=a>" + strings.Repeat("<parameter=x>", 2000),
	"deepseek envelopes":    strings.Repeat("<｜tool▁call▁begin｜>a<｜tool▁sep｜>{", 1000),
	"harmony headers":       strings.Repeat("<|channel|>commentary to=functions.a <|message|>{", 1000),
	"functools lists":       strings.Repeat("functools[", 2000),
	"python lists in prose": strings.Repeat("[a(b=1) c ", 2000),
	"open python lists":     strings.Repeat("x [a(", 2000),
	"cli lines":             strings.Repeat("read_file path=a b=c d=e\n", 1000),
	"invoke tags":           strings.Repeat(`<invoke name="a"><parameter name="b">`, 1000),
	"arg keys":              "<tool_call>a" + strings.Repeat("<arg_key>k</arg_key><arg_value>", 1000),
	"nameless arguments":    strings.Repeat(`{"arguments": {"path": "a"}} `, 500),
	"gemma calls":           strings.Repeat("call:read_file{path:`a", 2000),
	"gemma tags":            strings.Repeat(`<|tool_call>call:a{b:<|"|>c`, 1000),
	"xml tool tags":         strings.Repeat("<read_file>\n<path>", 2000),
	"xml tool tags closed":  strings.Repeat("<read_file><path>a</path>", 2000),
	"react actions":         strings.Repeat("Action: a\nAction Input: {", 1000),
	"functionary lines":     strings.Repeat(">>>a\n", 2000),
}

// TestAdversarialReplies checks the pathological replies are handled at
// all; BenchmarkRepairReply measures how fast.
func TestAdversarialReplies(t *testing.T) {
	for name, text := range adversarial {
		t.Run(name, func(t *testing.T) {
			rec := RepairReply(Message{Role: RoleAssistant, Content: text}, tableTools)
			if len(rec.Rest) > len(text) {
				t.Errorf("rest grew")
			}
		})
	}
}

func BenchmarkRepairReply(b *testing.B) {
	replies := map[string]string{
		"tagged call":  "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>",
		"broken bare":  `{'name': 'grep', 'arguments': {'pattern': 'func \w+', 'limit': '20',}`,
		"plain answer": strings.Repeat("The parser reads tokens {a} and builds a tree; see parse.go:12. ", 60),
		"adversarial":  adversarial["nested call starts"],
		"open fences":  adversarial["open fences"],
	}
	for name, text := range replies {
		b.Run(name, func(b *testing.B) {
			m := Message{Role: RoleAssistant, Content: text}
			for b.Loop() {
				RepairReply(m, tableTools)
			}
		})
	}
}
