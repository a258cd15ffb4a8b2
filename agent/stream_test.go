package agent

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

func TestCallFilter(t *testing.T) {
	tests := []struct {
		name      string
		chunks    []string
		wantShown string
		wantHeld  string
	}{
		{"plain prose streams", []string{"The answer ", "is 42.\nDone."}, "The answer is 42.\nDone.", ""},
		{"go code streams", []string{"```go\nfunc main() {}\n```"}, "```go\nfunc main() {}\n```", ""},
		{"html-like tags stream", []string{"use <b>bold</b> and [link]"}, "use <b>bold</b> and [link]", ""},
		{"tagged call split across chunks", []string{"Let me look. <tool", "_call>{\"name\":", "\"x\"}</tool_call>"}, "Let me look. ", "<tool_call>{\"name\":\"x\"}</tool_call>"},
		{"bare call at line start", []string{"{\"na", "me\": \"grep\", \"arguments\": {}}"}, "", "{\"name\": \"grep\", \"arguments\": {}}"},
		{"fenced json call", []string{"Sure.\n```json\n", "{\"name\": \"grep\"}\n```"}, "Sure.\n", "```json\n{\"name\": \"grep\"}\n```"},
		{"json that is not a call streams", []string{"{\"path\": \"a.go\"}\nok"}, "{\"path\": \"a.go\"}\nok", ""},
		{"python tag", []string{"<|python_tag|>{\"name\":\"x\"}"}, "", "<|python_tag|>{\"name\":\"x\"}"},
		{"granite tool_call token", []string{"<|tool_", "call|>[{\"name\": \"x\"}]"}, "", "<|tool_call|>[{\"name\": \"x\"}]"},
		{"mistral marker", []string{"[TOOL_", "CALLS][{\"name\": \"x\"}]"}, "", "[TOOL_CALLS][{\"name\": \"x\"}]"},
		{"single-quoted bare call", []string{"{'name': 'grep', 'arguments': {}}"}, "", "{'name': 'grep', 'arguments': {}}"},
		{"list of calls", []string{"[{\"name\": \"grep\"}]"}, "", "[{\"name\": \"grep\"}]"},
		{"python call list", []string{"[read_file(path=\"a.go\")]"}, "", "[read_file(path=\"a.go\")]"},
		{"gemma tool_code", []string{"```tool_code\nprint(grep(pattern=\"x\"))\n```"}, "", "```tool_code\nprint(grep(pattern=\"x\"))\n```"},
		{"markdown link streams", []string{"[the docs](https://go.dev) say so\n"}, "[the docs](https://go.dev) say so\n", ""},
		// A tag named after an offered tool is call markup the tolerant
		// reader reads (read_file offered below); other tags stream.
		{"tag of an offered tool", []string{"Looking.\n<read_", "file>\n<parameter=path>a.go</parameter>"}, "Looking.\n", "<read_file>\n<parameter=path>a.go</parameter>"},
		{"tag of another agent's name", []string{"<bash>ls</bash>"}, "", "<bash>ls</bash>"},
		{"tag of no tool streams", []string{"a <div> and <span>x</span>"}, "a <div> and <span>x</span>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCallFilter()
			f.tool = func(name string) bool {
				return models.NamesTool(name, []models.ToolSpec{{Name: "read_file"}, {Name: "run_command"}})
			}
			var shown strings.Builder
			for _, c := range tt.chunks {
				shown.WriteString(f.Write(c))
			}
			held := f.Held()
			if tt.wantHeld == "" {
				// Whatever is pending at the end is released by the agent.
				shown.WriteString(held)
				held = ""
			}
			if shown.String() != tt.wantShown {
				t.Errorf("shown = %q, want %q", shown.String(), tt.wantShown)
			}
			if held != tt.wantHeld {
				t.Errorf("held = %q, want %q", held, tt.wantHeld)
			}
		})
	}
}
