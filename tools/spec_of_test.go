package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSpecOf checks that a tool's parameters come from its args struct
// alone: names from the json tags in field order, types from the Go types,
// required, enum and explicit types from the tool tag, descriptions from
// the Markdown sections.
func TestSpecOf(t *testing.T) {
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
	got := string(SpecOf[args]("thing", md).WireJSON())
	want := `{"type":"function","function":{"name":"thing","description":"Does a thing.","parameters":{"type":"object","properties":{` +
		`"path":{"type":"string","description":"Where"},"lines":{"type":"integer"},"count":{"type":"integer"},"quiet":{"type":"boolean"},` +
		`"files":{"type":"array","items":{"type":"string"}},"hints":{"type":"array","items":{"type":"string"}},` +
		`"items":{"type":"array","items":{"type":"object"}},"ratio":{"type":"number"},` +
		`"mode":{"type":"string","description":"How fast","enum":["fast","slow"]}},"required":["path"]}}}`
	if got != want {
		t.Errorf("SpecOf =\n%s\nwant\n%s", got, want)
	}
	if got := string(SpecOf[struct{}]("none", "Nothing.").Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("no parameters: %s", got)
	}
}

// TestSpecOfRefusesUntypedFields: a field whose JSON type cannot be told
// is a mistake in the declaration, found when the tool is built.
func TestSpecOfRefusesUntypedFields(t *testing.T) {
	for name, build := range map[string]func(){
		"raw json": func() {
			SpecOf[struct {
				X json.RawMessage `json:"x"`
			}]("t", "")
		},
		"unknown option": func() {
			SpecOf[struct {
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
