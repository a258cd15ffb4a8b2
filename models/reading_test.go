package models

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReadReply: what ReadReply makes of replies no exact parser reads,
// against tableTools. want is "name args" for one call that runs, or the
// kind: "answer", "not prose", "refusal".
func TestReadReply(t *testing.T) {
	tests := []struct{ name, reply, want string }{
		// The tolerant reader: an offered tool named in markup, the
		// arguments in whatever syntax follows.
		{"xml parameters", "<read_file>\n<parameter=path>main.go</parameter>\n</read_file>", `read_file {"path":"main.go"}`},
		{"named parameter", `<invoke name="grep"><parameter name="pattern">TODO</parameter></invoke>`, `grep {"pattern":"TODO"}`},
		{"arg key and value", "<tool_call>grep<arg_key>pattern</arg_key><arg_value>func main</arg_value></tool_call>", `grep {"pattern":"func main"}`},
		{"key tags", "<tool_call>\n<name>read_file</name>\n<path>go.mod</path>\n</tool_call>", `read_file {"path":"go.mod"}`},
		{"flags", "<run_command> --command \"go vet ./...\" </run_command>", `run_command {"command":"go vet ./..."}`},
		{"arrows", "call: read_file { path => \"a.go\" }", `read_file {"path":"a.go"}`},
		{"key equals value", "[read_file(path='README.md')]", `read_file {"path":"README.md"}`},
		{"key colon value lines", "<tool>read_file</tool>\npath: docs/x.md", `read_file {"path":"docs/x.md"}`},
		{"another agent's name", `<Bash>{"command": "ls -la"}</Bash>`, `run_command {"command":"ls -la"}`},
		{"typeset quotes", "read_file{\u201cpath\u201d: \u201cmain.go\u201d}", `read_file {"path":"main.go"}`},
		{"template tokens", `]<]minimax[>[<invoke name="glob">]<]minimax[>[<parameter name="pattern">*.go</parameter></invoke>`, `glob {"pattern":"*.go"}`},
		{"bare value for the one argument", "<run_command>git status</run_command>", `run_command {"command":"git status"}`},
		{"pairs without a name", "pattern: TODO\npath: cmd/", `grep {"path":"cmd/","pattern":"TODO"}`},
		// One command line, alone or after the model says it runs it.
		{"lone command", "ls -la cmd/", `run_command {"command":"ls -la cmd/"}`},
		{"announced command", "I'll run the tests:\n\n```bash\ngo test ./...\n```", `run_command {"command":"go test ./..."}`},
		{"shell word", "bash\ngit log --oneline -5", `run_command {"command":"git log --oneline -5"}`},
		// Markup of no known format, around a command or an envelope.
		{"tag naming an action", "<execute>ls -la</execute>", `run_command {"command":"ls -la"}`},
		{"tag around a command line", "<action>\ngit status\n</action>", `run_command {"command":"git status"}`},
		{"shell tag", "<shell>cat go.mod</shell>", `run_command {"command":"cat go.mod"}`},
		{"announced tag", "Let me check the status.\n<execute>\ngit status\n</execute>", `run_command {"command":"git status"}`},
		{"recipient without to=", `commentary functions.read_file json{"path":"main.go"}`, `read_file {"path":"main.go"}`},
		{"tool named by its key", "[TOOL_CALL] --tool read_file --path main.go [/TOOL_CALL]", `read_file {"path":"main.go"}`},
		{"a word in code is no tool", "python\nprint(open('a.txt').read())", "not prose"},
		{"bracketed envelope", "[TOOL_REQUEST]\nread_file => path => \"main.go\"\n[END_TOOL_REQUEST]", `read_file {"path":"main.go"}`},
		{"bracket opened by a word", `[CALL grep --pattern "TODO" --path cmd/]`, `grep {"path":"cmd/","pattern":"TODO"}`},
		// Native syntax whose special tokens the server stripped.
		{"harmony channel as words", `commentary to=functions.read_file json{"path":"main.go"}`, `read_file {"path":"main.go"}`},
		{"harmony recipient", `assistantcommentary to=grep code{"pattern": "func main"}`, `grep {"pattern":"func main"}`},
		{"kimi call id", `functions.read_file:0<|tool_call_argument_begin|>{"path": "main.go"}`, `read_file {"path":"main.go"}`},
		{"a value is no tool", `to=functions.run_command {"command":"ls"}`, `run_command {"command":"ls"}`},
		{"name line and pairs", "<tool_call>\nread_file\npath: main.go\n</tool_call>", `read_file {"path":"main.go"}`},
		// Arguments without a name: the one tool they fit, else corrected.
		{"arguments of one tool", `{"path": "main.go", "offset": 10}`, `read_file {"offset":10,"path":"main.go"}`},
		{"arguments of two tools", `{"pattern": "TODO"}`, "not prose"},
		// Not prose, no call that fits: corrected.
		{"tool named, arguments do not fit", `<grep><file>main.go</file></grep>`, `grep {"path":"main.go"} !grep needs pattern`},
		{"template marker alone", "[TOOL_CALLS]", "broken: "},
		{"markup of no call", "<|tool_call_start|>\n<|tool_call_end|>", "broken: "},
		{"a tag alone", "<execute_bash>\n</execute_bash>", "not prose"},
		{"a call line of no tool", "search_web(q='go 1.26 release notes')", "not prose"},
		{"json alone", `{"query": "weather in Rome"}`, "not prose"},
		// Answers, whatever they show.
		{"instruction with a command", "To expose Ollama, run:\n\n```shell\nngrok http 11434\n```", "answer"},
		{"example in code", "Call it like this:\n\n```python\nread_file(path=\"main.go\")\n```\n\nThat reads the file.", "answer"},
		{"mention in inline code", "The parser reads `<read_file>` blocks and `{\"path\": \"x\"}` objects.", "answer"},
		{"wrapped mention", "Bypass the alias by calling ripgrep as\n  `command rg`, `\\rg`, or `'rg'`.", "answer"},
		{"a link", "Please consult ripgrep's [CHANGELOG](CHANGELOG.md).", "answer"},
		{"a sentence with a colon", "Done: I read hello.txt and it holds one line of greeting.", "answer"},
		{"a status marker", "[DONE] All tests pass.", "answer"},
		{"tool name in prose", "grep is faster here, and the path\nglob matches every Go file.", "answer"},
		{"quoted name in prose", `If you hear "grep can do it", then "grep" is fine.`, "answer"},
		{"script in a fence", "Make it robust:\n\n```\n#!/bin/sh\ncase \"$1\" in\n*.pdf) exec pdftotext - - ;;\n*) exec cat ;;\nesac\n```", "answer"},
		// Refusals with tools on offer.
		{"refusal", "I'm sorry, but I can't access files on your computer.", "refusal"},
		{"refusal to run", "I'm unable to run commands on your machine, but you can run `go test ./...` yourself.", "refusal"},
		{"refusal of what no tool does", "I can't browse the web, so I cannot tell you today's news.", "answer"},
		{"not a refusal", "I can't tell from this diff alone whether the lock is needed; the caller holds it.", "answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ReadReply(Message{Role: RoleAssistant, Content: tt.reply}, tableTools)
			got := describeReading(r)
			if got != tt.want && !(strings.Contains(tt.want, " !") || strings.HasSuffix(tt.want, ": ")) || !strings.HasPrefix(got, tt.want) {
				t.Errorf("%q\n got %s\nwant %s", tt.reply, got, tt.want)
			}
		})
	}
}

// describeReading is a reading in the words of TestReadReply.
func describeReading(r Reading) string {
	switch r.Kind {
	case ReplyCalls:
		var out []string
		for _, c := range r.Calls {
			var args any
			_ = json.Unmarshal(c.Arguments, &args)
			b, _ := json.Marshal(args)
			s := c.Name + " " + string(b)
			if c.Problem != "" {
				s += " !" + c.Problem
			}
			out = append(out, s)
		}
		return strings.Join(out, "; ")
	case ReplyBroken:
		return "broken: " + r.Broken
	case ReplyNotProse:
		return "not prose"
	case ReplyRefusal:
		return "refusal"
	}
	return "answer"
}

// TestReadReplyRest: the text around a call the reader read is what the
// user sees.
func TestReadReplyRest(t *testing.T) {
	r := ReadReply(Message{Role: RoleAssistant, Content: "Let me look.\n<read_file>\n<parameter=path>main.go</parameter>\n</read_file>"}, tableTools)
	if len(r.Calls) != 1 || r.Rest != "Let me look." {
		t.Errorf("calls %v, rest %q", r.Calls, r.Rest)
	}
}

// TestReadReplyWithoutTools: with nothing on offer, the tolerant reader
// reads nothing and the reply's shape corrects nothing.
func TestReadReplyWithoutTools(t *testing.T) {
	for _, reply := range []string{"ls -la", `<grep><pattern>x</pattern></grep>`, "I can't access files."} {
		r := ReadReply(Message{Role: RoleAssistant, Content: reply}, nil)
		if r.Kind == ReplyNotProse || r.Kind == ReplyRefusal {
			t.Errorf("%q: kind %d", reply, r.Kind)
		}
	}
}

func TestIsToolParseFailure(t *testing.T) {
	for _, tc := range []struct {
		msg         string
		tools, want bool
	}{
		{"The model produced output that does not match the expected peg-native format", true, true},
		{`Failed to parse tool call: Expected "<|message|>", but got "to=function" at index 89.`, true, true},
		{"The model produced output that does not match the expected peg-native format", false, false},
		{"CUDA error: out of memory", true, false},
		{"error parsing tool call: raw='{', err=unexpected end of JSON input", false, true},
	} {
		if got := IsToolParseFailure(tc.msg, tc.tools); got != tc.want {
			t.Errorf("IsToolParseFailure(%q, %v) = %v", tc.msg, tc.tools, got)
		}
	}
}

// TestRefusalNamesTheTool: a refusal is answered with the offered tool
// that does what it refused.
func TestRefusalNamesTheTool(t *testing.T) {
	for reply, want := range map[string]string{
		"I cannot execute shell commands.":                  "run_command",
		"I don't have access to your files, unfortunately.": "read_file",
		"As an AI, I can't search your repository.":         "grep",
		"I can't edit files directly.":                      "edit_file",
	} {
		r := ReadReply(Message{Role: RoleAssistant, Content: reply}, tableTools)
		if r.Kind != ReplyRefusal || r.Tool != want {
			t.Errorf("%q: kind %d, tool %q; want a refusal of %s", reply, r.Kind, r.Tool, want)
		}
	}
}
