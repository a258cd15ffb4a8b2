package models

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExtractToolCalls(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		wantName string
		wantArgs string
		wantHow  string
		wantRest string
	}{
		{"tagged", `<tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call>`, "read_file", `{"path": "a.go"}`, RepairTagged, ""},
		{"tagged unclosed", "<tool_call>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"x\"}}", "grep", `{"pattern": "x"}`, RepairTagged, ""},
		{"fenced json", "Let me look.\n```json\n{\"name\": \"list_dir\", \"arguments\": {}}\n```", "list_dir", `{}`, RepairFenced, "Let me look."},
		{"bare with prose", `I will call {"name":"glob","arguments":{"pattern":"*.go"}} now`, "glob", `{"pattern":"*.go"}`, RepairBare, "I will call  now"},
		{"stringified arguments", `{"name":"read_file","arguments":"{\"path\":\"x\"}"}`, "read_file", `{"path":"x"}`, RepairBare, ""},
		{"args alias", `{"name":"read_file","args":{"path":"x"}}`, "read_file", `{"path":"x"}`, RepairBare, ""},
		{"parameters alias", `{"name":"read_file","parameters":{"path":"x"}}`, "read_file", `{"path":"x"}`, RepairBare, ""},
		{"openai function shape", `{"type":"function","function":{"name":"grep","arguments":{"pattern":"y"}}}`, "grep", `{"pattern":"y"}`, RepairBare, ""},
		{"no call", `The answer is {42}.`, "", "", "", `The answer is {42}.`},
		{"plain json is not a call", `{"path": "a.go"}`, "", "", "", `{"path": "a.go"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rest, how := ExtractToolCalls(tt.text)
			if how != tt.wantHow {
				t.Errorf("how = %q, want %q", how, tt.wantHow)
			}
			if rest != tt.wantRest {
				t.Errorf("rest = %q, want %q", rest, tt.wantRest)
			}
			if tt.wantName == "" {
				if len(calls) != 0 {
					t.Errorf("found calls %v in plain text", calls)
				}
				return
			}
			if len(calls) != 1 || calls[0].Name != tt.wantName || string(calls[0].Arguments) != tt.wantArgs {
				t.Errorf("calls = %+v, want %s %s", calls, tt.wantName, tt.wantArgs)
			}
		})
	}
}

func TestCheckArgs(t *testing.T) {
	spec := ToolSpec{Name: "read_file", Parameters: Schema(
		Param{Name: "path", Type: "string", Required: true},
		Param{Name: "offset", Type: "integer"},
		Param{Name: "all", Type: "boolean"},
	)}
	tests := []struct {
		args, want, wantErr string
	}{
		{`{"path":"a.go"}`, `{"path":"a.go"}`, ""},
		{`{"path":"a.go","offset":"10"}`, `{"path":"a.go","offset":10}`, ""},
		{`{"offset":10.0,"path":"a.go"}`, `{"path":"a.go","offset":10}`, ""},
		{`{"path":"a.go","all":"yes"}`, `{"path":"a.go","all":true}`, ""},
		{`{"path":"a.go","color":"red"}`, `{"path":"a.go"}`, ""},
		{`"{\"path\":\"a.go\"}"`, `{"path":"a.go"}`, ""},
		{`{}`, "", `read_file needs path; call it like {"name": "read_file", "arguments": {"path": "main.go"}}`},
		{`{"path":"a.go","offset":"ten"}`, "", `argument "offset" of read_file must be an integer`},
		{`[1,2]`, "", `arguments of read_file must be a JSON object`},
	}
	for _, tt := range tests {
		got, _, err := CheckArgs(spec, []byte(tt.args))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("CheckArgs(%s) error = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("CheckArgs(%s) = %s, %v; want %s", tt.args, got, err, tt.want)
		}
	}
}

func TestSchemaRoundTrip(t *testing.T) {
	in := []Param{
		{Name: "path", Type: "string", Description: "file", Required: true},
		{Name: "mode", Type: "string", Enum: []string{"a", "b"}},
		{Name: "paths", Type: "array", Items: "string"},
	}
	got := SchemaParams(Schema(in...))
	if len(got) != len(in) {
		t.Fatalf("got %d params", len(got))
	}
	for i := range in {
		if got[i].Name != in[i].Name || got[i].Type != in[i].Type || got[i].Required != in[i].Required || len(got[i].Enum) != len(in[i].Enum) {
			t.Errorf("param %d = %+v, want %+v", i, got[i], in[i])
		}
	}
	wire := string(ToolSpec{Name: "t", Description: "d <b>", Parameters: Schema(in[0])}.WireJSON())
	want := `{"type":"function","function":{"name":"t","description":"d <b>","parameters":{"type":"object","properties":{"path":{"type":"string","description":"file"}},"required":["path"]}}}`
	if wire != want {
		t.Errorf("WireJSON =\n%s\nwant\n%s", wire, want)
	}
}

// TestXMLValuesFollowTheSchema: an XML call's value is text, JSON text
// too; it becomes an object or a list only where the tool takes one (an
// MCP tool's object parameter), and stays the text a .json file holds
// where the tool takes a string.
func TestXMLValuesFollowTheSchema(t *testing.T) {
	spec := ToolSpec{Name: "create_issue", Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"title":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}},"fields":{"type":"object"}},"required":["title"]}`)}
	reply := "<tool_call>\n<function=create_issue>\n<parameter=title>\n{\"not\": \"an object\"}\n</parameter>\n" +
		"<parameter=labels>\n[\"bug\", \"ui\"]\n</parameter>\n<parameter=fields>\n{\"priority\": 2}\n</parameter>\n</function>\n</tool_call>"
	rec := RepairReply(Message{Role: RoleAssistant, Content: reply}, []ToolSpec{spec})
	if len(rec.Calls) != 1 || rec.Calls[0].Problem != "" {
		t.Fatalf("calls = %+v", rec.Calls)
	}
	var args struct {
		Title  string         `json:"title"`
		Labels []string       `json:"labels"`
		Fields map[string]int `json:"fields"`
	}
	if err := json.Unmarshal(rec.Calls[0].Arguments, &args); err != nil {
		t.Fatalf("arguments %s: %v", rec.Calls[0].Arguments, err)
	}
	if args.Title != `{"not": "an object"}` || len(args.Labels) != 2 || args.Fields["priority"] != 2 {
		t.Errorf("arguments = %s", rec.Calls[0].Arguments)
	}
}
