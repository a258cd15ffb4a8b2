package models

import "testing"

func TestIsToolParseMessage(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		// Ollama v0.17.4's parsers, in their own words.
		{`error parsing tool call: raw='{"name": read_file', err=invalid character 'r' looking for beginning of value`, true},
		{"failed to parse JSON: unexpected end of JSON input", true},
		{"invalid character ']' after object key:value pair", true},
		{"invalid character '}' looking for beginning of object key string", true},
		{"unexpected end of JSON input", true},
		{"failed to parse XML: XML syntax error on line 1: unexpected EOF", true},
		{`failed to parse function call "read_file(path=": invalid function call format`, true},
		{"invalid tool call: no matching closing parenthesis", true},
		{"empty function name", true},
		{"json: cannot unmarshal string into Go value of type map[string]interface {}", true},
		{"Failed to parse tool_call arguments", true},
		// qwen3-coder's parser passes encoding/xml's words on (ollama#17276,
		// continue#10896).
		{"XML syntax error on line 8: element <function> closed by </parameter>", true},
		{"expected element type <function> but have <parameter>", true},
		// Not a parser failing on the model's output.
		{"llama runner process has terminated: exit status 2", false},
		{"an error was encountered while running the model: unexpected EOF", false},
		{"model 'x' not found", false},
		{"server busy, please try again.  maximum pending requests exceeded", false},
		{"registry.ollama.ai/library/tiny:latest does not support tools", false},
		{"", false},
	} {
		if got := IsToolParseMessage(tt.msg); got != tt.want {
			t.Errorf("IsToolParseMessage(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
