package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

// TestDeclare checks that a tool's parameters come from its args struct
// alone: names from the json tags in field order, types from the Go types,
// required, enum and explicit types from the tool tag, descriptions from
// the Markdown sections.
func TestDeclare(t *testing.T) {
	type inner struct {
		Mode string `json:"mode" tool:"enum=fast|slow"`
	}
	type args struct {
		Path   string          `json:"path" tool:"required"`
		Lines  intArg          `json:"lines"`
		Count  int             `json:"count"`
		Quiet  boolArg         `json:"quiet"`
		Files  []string        `json:"files"`
		Hints  stringList      `json:"hints"`
		Items  json.RawMessage `json:"items" tool:"type=array,items=object"`
		Ratio  float64         `json:"ratio"`
		hidden string
		Skip   string `json:"-"`
		inner
	}
	md := "Does a thing.\n\n## path\nWhere\n\n## mode\nHow fast\n"
	got := string(Declare[args]("thing", md).Spec().WireJSON())
	want := `{"type":"function","function":{"name":"thing","description":"Does a thing.","parameters":{"type":"object","properties":{` +
		`"path":{"type":"string","description":"Where"},"lines":{"type":"integer"},"count":{"type":"integer"},"quiet":{"type":"boolean"},` +
		`"files":{"type":"array","items":{"type":"string"}},"hints":{"type":"array","items":{"type":"string"}},` +
		`"items":{"type":"array","items":{"type":"object"}},"ratio":{"type":"number"},` +
		`"mode":{"type":"string","description":"How fast","enum":["fast","slow"]}},"required":["path"]}}}`
	if got != want {
		t.Errorf("Declare =\n%s\nwant\n%s", got, want)
	}
	if got := string(Declare[struct{}]("none", "Nothing.").Spec().Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("no parameters: %s", got)
	}
}

// TestDeclareRefusesUntypedFields: a field whose JSON type cannot be told
// is a mistake in the declaration, found when the tool is built.
func TestDeclareRefusesUntypedFields(t *testing.T) {
	for name, build := range map[string]func(){
		"raw json": func() {
			Declare[struct {
				X json.RawMessage `json:"x"`
			}]("t", "")
		},
		"unknown option": func() {
			Declare[struct {
				X string `json:"x" tool:"requird"`
			}]("t", "")
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "tools:") {
					t.Errorf("recover() = %v, want a panic naming the field", r)
				}
			}()
			build()
		})
	}
}

// TestDescribe checks what a call is about, as each built-in tool
// declares it, and the guess for tools that declare nothing (MCP tools).
func TestDescribe(t *testing.T) {
	tools := map[string]Tool{}
	for _, tool := range allTools(t) {
		if _, ok := tool.(Describer); !ok {
			t.Errorf("%s does not say what its calls are about", tool.Spec().Name)
		}
		tools[tool.Spec().Name] = tool
	}
	tests := []struct{ tool, args, want string }{
		{"read_file", `{"path":"agent/loop.go","offset":1,"limit":80}`, "agent/loop.go:1-80"},
		{"read_file", `{"path":"a.go","offset":"40"}`, "a.go:40-"},
		{"read_file", `{"path":"a.go"}`, "a.go"},
		{"grep", `{"pattern":"parseConfig","path":"cmd"}`, `"parseConfig" in cmd`},
		{"grep", `{"pattern":"x","path":"."}`, `"x"`},
		{"glob", `{"pattern":"**/*.go"}`, `"**/*.go"`},
		{"search_code", `{"query":"where is the config parsed","k":3}`, `"where is the config parsed"`},
		{"list_dir", `{}`, ""},
		{"list_dir", `{"path":"cmd","depth":2}`, "cmd"},
		{"list_dir", `{"depth":2}`, ""},
		{"run_command", `{"command":"go test ./..."}`, "go test ./..."},
		{"edit_file", `{"path":"main.go","old_string":"a","new_string":"b"}`, "main.go"},
		{"write_file", `{"path":"new.go","content":"package x"}`, "new.go"},
		{"git_diff", `{"staged":true}`, ""},
		{"git_diff", `{"path":"tools"}`, "tools"},
		{"git_status", `{}`, ""},
		{"git_commit", `{"message":"fix"}`, ""},
		{"explore", `{"task":"find the parser"}`, ""},
		{"ask_user", `{"questions":[]}`, ""},
		{"fetch_url", `{"url":"https://go.dev"}`, "https://go.dev"},
		{"read_file", `not json`, ""},
	}
	for _, tt := range tests {
		if got := Describe(tools[tt.tool], json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("Describe(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
	// A tool that declares no subject (an MCP server's, or none at all)
	// gets the argument most tools name it by.
	for args, want := range map[string]string{
		`{"query":"x","path":"docs"}`:     `"x" in docs`,
		`{"file_path":"a.md","offset":3}`: "a.md:3-",
		`{"x":[1,2]}`:                     "",
		`{"url":"https://go.dev"}`:        "https://go.dev",
	} {
		if got := Describe(nil, json.RawMessage(args)); got != want {
			t.Errorf("Describe(nil, %s) = %q, want %q", args, got, want)
		}
	}
}

// fakeTool is a tool declared the way every built-in tool is: an args
// struct and a description, nothing else.
type fakeTool struct{ Decl }

type fakeArgs struct {
	Target string `json:"target" tool:"required,subject"`
	Force  bool   `json:"force"`
}

func (fakeTool) Effect() Effect                    { return Writes }
func (fakeTool) Run(context.Context, Input) Result { return Result{Output: "done"} }
func (fakeTool) Review(context.Context, json.RawMessage) Review {
	return Review{Preview: "would do it"}
}

// TestOneDeclaration adds a tool in the one place a tool is declared (its
// file: the args struct and description, plus its row in the table of
// built-in tools) and finds its spec, tier and subject everywhere they are
// read: the tiers a session is built from (Builtins), the names MCP tools
// may not take (BuiltinNames), and what its calls are about (Describe).
func TestOneDeclaration(t *testing.T) {
	table := append(slices.Clone(builtins), builtin{TierEdit, allAgents, func(Deps) (Tool, error) {
		return fakeTool{Declare[fakeArgs]("frob", "Frob a target.\n\n## target\nWhat to frob\n\n## force\nFrob even when locked\n")}, nil
	}})
	ws := newFixture(t)
	tiers, err := build(table, Deps{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	edit := tiers[TierEdit]
	last := edit[len(edit)-1]
	if last.Spec().Name != "frob" {
		t.Fatalf("tier 1 = %v, want frob at its end", namesOf(edit))
	}
	want := `{"type":"function","function":{"name":"frob","description":"Frob a target.","parameters":{"type":"object","properties":{` +
		`"target":{"type":"string","description":"What to frob"},"force":{"type":"boolean","description":"Frob even when locked"}},"required":["target"]}}}`
	if got := string(last.Spec().WireJSON()); got != want {
		t.Errorf("spec = %s\nwant %s", got, want)
	}
	if got := Describe(last, json.RawMessage(`{"target":"widget","force":true}`)); got != "widget" {
		t.Errorf("subject = %q, want widget", got)
	}
	if names := names(table, ws); !slices.Contains(names, "frob") {
		t.Errorf("BuiltinNames = %v, without frob", names)
	}
	for tier, list := range tiers {
		if tier != TierEdit && slices.Contains(namesOf(list), "frob") {
			t.Errorf("frob is also in tier %d", tier)
		}
	}
}

func namesOf(ts []Tool) []string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Spec().Name)
	}
	return names
}

// TestEffectDoing: the approval dialog says what a call would do in the
// tool's words for its effect, so the TUI keeps no table of effects.
func TestEffectDoing(t *testing.T) {
	for e, want := range map[Effect]string{ReadOnly: "", Writes: "writes files", Executes: "runs a command", External: "reaches outside this machine"} {
		if got := e.Doing(); got != want {
			t.Errorf("%v.Doing() = %q, want %q", e, got, want)
		}
	}
}

// TestDescribeKeepsTheOldHeaders: for every call of a built-in tool that
// names only its own parameters, the subject a tool declares is the one
// the TUI used to guess from argument names (commonSubject), so no call's
// line changed when the TUI stopped guessing. Tools added since had no
// old header to keep.
func TestDescribeKeepsTheOldHeaders(t *testing.T) {
	sample := map[string]any{"string": "cmd/main.go", "integer": 7, "boolean": true, "array": []string{"x"}}
	newer := map[string]bool{"definition": true, "references": true}
	for _, tool := range allTools(t) {
		if newer[tool.Spec().Name] {
			continue
		}
		params := models.SchemaParams(tool.Spec().Parameters)
		for set := range 1 << len(params) {
			args := map[string]any{}
			for i, p := range params {
				if set&(1<<i) != 0 {
					args[p.Name] = sample[p.Type]
				}
			}
			raw, _ := json.Marshal(args)
			if got, old := Describe(tool, raw), subjectOf(raw, commonSubject); got != old {
				t.Errorf("%s %s: subject %q, the TUI showed %q", tool.Spec().Name, raw, got, old)
			}
		}
	}
}

// TestMainAgentOnly: the table's second column names the read-only tools
// explore's subagents do not get.
func TestMainAgentOnly(t *testing.T) {
	ws := newFixture(t)
	if got, want := MainAgentOnly(ws), []string{"explore", "ask_user"}; !slices.Equal(got, want) {
		t.Errorf("MainAgentOnly = %v, want %v", got, want)
	}
}
