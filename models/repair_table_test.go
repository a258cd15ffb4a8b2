package models

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// tableTools are the tools the malformed-output table is checked against:
// tern's tier-0 to tier-2 tools, as their schemas stand.
var tableTools = []ToolSpec{
	{Name: "read_file", Parameters: Schema(
		Param{Name: "path", Type: "string", Required: true},
		Param{Name: "offset", Type: "integer"},
		Param{Name: "limit", Type: "integer"})},
	{Name: "list_dir", Parameters: Schema(Param{Name: "path", Type: "string"})},
	{Name: "grep", Parameters: Schema(
		Param{Name: "pattern", Type: "string", Required: true},
		Param{Name: "path", Type: "string"},
		Param{Name: "limit", Type: "integer"})},
	{Name: "glob", Parameters: Schema(Param{Name: "pattern", Type: "string", Required: true})},
	{Name: "edit_file", Parameters: Schema(
		Param{Name: "path", Type: "string", Required: true},
		Param{Name: "old_string", Type: "string", Required: true},
		Param{Name: "new_string", Type: "string", Required: true})},
	{Name: "write_file", Parameters: Schema(
		Param{Name: "path", Type: "string", Required: true},
		Param{Name: "content", Type: "string", Required: true},
		Param{Name: "overwrite", Type: "boolean"})},
	{Name: "run_command", Parameters: Schema(
		Param{Name: "command", Type: "string", Required: true},
		Param{Name: "timeout", Type: "integer"})},
}

// tableCase is one entry of testdata/malformed.txt.
type tableCase struct {
	name  string
	input string
	// calls are "name args repair" lines, with " !problem" when the call
	// must not run and its problem must contain that text.
	calls []string
	// rest, when set, is the text the user must be shown.
	rest    *string
	broken  string
	noCalls bool
}

// loadTable reads testdata/malformed.txt: each case starts with a line
// "=== name", then the model's output verbatim, then sections opened by
// "--- calls", "--- rest", "--- broken: TEXT" or "--- none".
func loadTable(t testing.TB) []tableCase {
	data, err := os.ReadFile("testdata/malformed.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []tableCase
	var cur *tableCase
	section := ""
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.Join(body, "\n")
		switch section {
		case "input":
			cur.input = text
		case "calls":
			for _, l := range body {
				if strings.TrimSpace(l) != "" {
					cur.calls = append(cur.calls, l)
				}
			}
		case "rest":
			cur.rest = &text
		}
		body = nil
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "=== "):
			flush()
			if cur != nil {
				cases = append(cases, *cur)
			}
			cur = &tableCase{name: strings.TrimPrefix(line, "=== ")}
			section = "input"
		case cur == nil:
			// comments before the first case
		case strings.HasPrefix(line, "--- "):
			flush()
			section = strings.TrimPrefix(line, "--- ")
			if b, ok := strings.CutPrefix(section, "broken: "); ok {
				cur.broken, section = b, ""
			}
			if section == "none" {
				cur.noCalls, section = true, ""
			}
		default:
			body = append(body, line)
		}
	}
	flush()
	if cur != nil {
		cases = append(cases, *cur)
	}
	return cases
}

func TestMalformedOutputs(t *testing.T) {
	cases := loadTable(t)
	if len(cases) < 60 {
		t.Errorf("the table has %d cases; keep at least 60", len(cases))
	}
	paths := map[string]int{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := RepairReply(Message{Role: RoleAssistant, Content: tc.input}, tableTools)
			var got []string
			for _, c := range rec.Calls {
				var b bytes.Buffer
				if err := json.Compact(&b, c.Arguments); err != nil {
					t.Errorf("call %s has arguments that are not JSON: %s", c.Name, c.Arguments)
				}
				line := c.Name + " " + b.String() + " " + c.Repair()
				if c.Problem != "" {
					line += " !" + c.Problem
				}
				got = append(got, line)
				paths[c.Path]++
			}
			if tc.noCalls && len(got) > 0 {
				t.Errorf("found calls in text that holds none:\n%s", strings.Join(got, "\n"))
			}
			if len(got) != len(tc.calls) {
				t.Fatalf("got %d calls, want %d:\ngot:\n%s\nwant:\n%s", len(got), len(tc.calls), strings.Join(got, "\n"), strings.Join(tc.calls, "\n"))
			}
			for i, want := range tc.calls {
				wantCall, wantProblem, _ := strings.Cut(want, " !")
				gotCall, gotProblem, _ := strings.Cut(got[i], " !")
				if gotCall != wantCall || !strings.Contains(gotProblem, wantProblem) || (wantProblem == "") != (gotProblem == "") {
					t.Errorf("call %d:\n got %s\nwant %s", i, got[i], want)
				}
			}
			if tc.rest != nil && rec.Rest != *tc.rest {
				t.Errorf("rest = %q, want %q", rec.Rest, *tc.rest)
			}
			if !strings.Contains(rec.Broken, tc.broken) || (tc.broken == "") != (rec.Broken == "") {
				t.Errorf("broken = %q, want it to say %q", rec.Broken, tc.broken)
			}
			if tc.noCalls && tc.broken == "" && tc.rest == nil && rec.Rest != strings.TrimSpace(tc.input) {
				t.Errorf("text without calls was changed: %q", rec.Rest)
			}
		})
	}
	t.Logf("calls by path: %v", paths)
}

// FuzzRepairReply feeds the pipeline arbitrary replies: it must never
// panic, and whatever it returns as a call must be well formed. The seed
// corpus is the malformed-output table plus testdata/fuzz.
func FuzzRepairReply(f *testing.F) {
	for _, tc := range loadTable(f) {
		f.Add(tc.input)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rec := RepairReply(Message{Role: RoleAssistant, Content: text}, tableTools)

		for _, c := range rec.Calls {
			if c.Name == "" {
				t.Fatalf("a call without a name from %q", text)
			}
			if !json.Valid(c.Arguments) {
				t.Fatalf("call %s has invalid arguments %q from %q", c.Name, c.Arguments, text)
			}
			if c.Problem == "" && (len(c.Arguments) == 0 || c.Arguments[0] != '{') {
				t.Fatalf("valid call %s with non-object arguments %q", c.Name, c.Arguments)
			}
		}
		if len(rec.Rest) > len(text) {
			t.Fatalf("rest %q is longer than the reply %q", rec.Rest, text)
		}
		calls, _, _ := ExtractToolCalls(text)
		for _, c := range calls {
			if c.Name == "" || !json.Valid(c.Arguments) {
				t.Fatalf("ExtractToolCalls gave %+v from %q", c, text)
			}
		}
	})
}
