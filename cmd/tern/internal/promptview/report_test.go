package promptview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// byteCounter counts a byte a token, and a message's content plus 4, so
// that every figure of a report can be worked out by hand.
type byteCounter struct{}

func (byteCounter) Count(text string) int              { return len(text) }
func (byteCounter) MessageTokens(m models.Message) int { return len(m.Content) + 4 }

// fakeTool is a tool with a name; it is never run.
type fakeTool struct{ name string }

func (f fakeTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: f.name, Description: "fake " + f.name, Parameters: models.Schema(models.Param{Name: "x", Type: "string"})}
}
func (fakeTool) Effect() tools.Effect                          { return tools.ReadOnly }
func (fakeTool) Run(context.Context, tools.Input) tools.Result { return tools.Result{} }

func wire(name string) string { return string(fakeTool{name}.Spec().WireJSON()) }

func newSet(t *testing.T, start, maxTier disclosure.Tier, byTier ...[]string) *disclosure.Set {
	t.Helper()
	var ts [disclosure.NumTiers][]tools.Tool
	for tier, names := range byTier {
		for _, n := range names {
			ts[tier] = append(ts[tier], fakeTool{n})
		}
	}
	set, err := disclosure.New(disclosure.Config{Tools: ts, Start: start, Max: maxTier})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestWriteNative(t *testing.T) {
	t.Parallel()
	p := Report{Counter: byteCounter{}, Set: newSet(t, disclosure.Read, disclosure.Read, []string{"read_file", "grep"}),
		System: "You are tern.", Model: "qwen3:8b", Template: "qwen3"}
	var b strings.Builder
	p.Write(&b)
	sys := len("You are tern.") + 4
	r, g := len(wire("read_file")), len(wire("grep"))
	want := "# First request of a new session: qwen3:8b (qwen3 template), tier 0 (read), up to tier 0 (read)\n\n" +
		fmt.Sprintf("## System prompt (%d tokens)\n\nYou are tern.\n", sys) +
		"## Tools (2, sent as JSON)\n\n" + wire("read_file") + "\n" + wire("grep") + "\n\n" +
		"## Tokens (cl100k_base)\n\n" +
		"part                           tier tokens  sent\n" +
		fmt.Sprintf("system prompt                       %6d  yes\n", sys) +
		fmt.Sprintf("read_file                         0 %6d  yes\n", r) +
		fmt.Sprintf("grep                              0 %6d  yes\n", g) +
		"\n" +
		fmt.Sprintf("request at tier 0                   %6d  \n", sys+r+g) +
		fmt.Sprintf("this request (tier 0)               %6d  \n", sys+r+g)
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestCostsByTier(t *testing.T) {
	t.Parallel()
	set := newSet(t, disclosure.Read, disclosure.Edit, []string{"read_file"}, []string{"edit_file", "write_file"})
	p := Report{Counter: byteCounter{}, Set: set, System: "S", Model: "m", Template: "default"}
	var b strings.Builder
	if err := p.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got JSON
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, b.String())
	}
	// request_tools joins tier 0 when a higher tier can be unlocked.
	var tier0 int
	for _, tool := range set.Tools(disclosure.Read) {
		tier0 += len(tool.Spec().WireJSON())
	}
	sys := len("S") + 4
	tier1 := len(wire("edit_file")) + len(wire("write_file"))
	if got.Tier != 0 || got.MaxTier != 1 || got.ToolMode != "native" || got.System != "S" || got.Tokens.System != sys {
		t.Errorf("heading = %+v", got)
	}
	if len(got.Tools) != 2 || got.Tokens.Request != sys+tier0 {
		t.Errorf("sent %d tools costing %d, want read_file and request_tools costing %d", len(got.Tools), got.Tokens.Request, sys+tier0)
	}
	if want := []int{sys + tier0, sys + tier0 + tier1}; fmt.Sprint(got.Tokens.ByTier) != fmt.Sprint(want) {
		t.Errorf("by tier = %v, want %v", got.Tokens.ByTier, want)
	}
	var sent []string
	for _, c := range got.Tokens.Tools {
		if c.Sent {
			sent = append(sent, c.Name)
		}
		if c.Name == "edit_file" && (c.Tier != 1 || c.Tokens != len(wire("edit_file"))) {
			t.Errorf("edit_file's cost = %+v", c)
		}
	}
	if fmt.Sprint(sent) != "[read_file request_tools]" {
		t.Errorf("sent = %v, want the tier-0 tools", sent)
	}
	var md strings.Builder
	p.Write(&md)
	for _, want := range []string{
		"edit_file                         1 ",
		fmt.Sprintf("request at tier 1                   %6d  \n", sys+tier0+tier1),
		fmt.Sprintf("this request (tier 0)               %6d  \n", sys+tier0),
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "(all tools)") {
		t.Errorf("a report capped at tier 1 says all tools:\n%s", md.String())
	}
}

func TestTextProtocol(t *testing.T) {
	t.Parallel()
	render := func(specs []models.ToolSpec) string {
		var names []string
		for _, s := range specs {
			names = append(names, s.Name)
		}
		return "S\nTools: " + strings.Join(names, ", ")
	}
	set := newSet(t, disclosure.Read, disclosure.External, []string{"read_file"}, nil, []string{"run_command"}, []string{"fetch"})
	p := Report{Counter: byteCounter{}, Set: set, System: "S", Render: render, Model: "llama3.2:3b", Template: "llama"}
	var md strings.Builder
	p.Write(&md)
	for _, want := range []string{
		"## Tools\n\nNone sent natively: the text tool protocol describes them in the system prompt.\n\n",
		fmt.Sprintf("this request (tier 0)               %6d  \n", len("S\nTools: read_file, request_tools")+4),
		fmt.Sprintf("request at tier 3 (all tools)       %6d  \n", len("S\nTools: read_file, request_tools, run_command, fetch")+4),
		"\nIn the text tool protocol the tools' cost is part of the system prompt's.\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "sent as JSON") {
		t.Errorf("the text protocol's report lists schemas:\n%s", md.String())
	}
	var js strings.Builder
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got JSON
	if err := json.Unmarshal([]byte(js.String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.ToolMode != "text" || got.System != "S\nTools: read_file, request_tools" || len(got.Tools) != 0 || !strings.Contains(js.String(), `"tools": []`) {
		t.Errorf("text protocol JSON: %s", js.String())
	}
}

func TestWriteOffline(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	WriteOffline(&b, errors.New("cannot reach Ollama at 127.0.0.1:11434\nis it running?"), "qwen3", true)
	want := "tern: cannot reach Ollama at 127.0.0.1:11434\n" +
		"tern: showing the prompt offline, for the qwen3 template (from --model or the config), with text-protocol tools\n"
	if b.String() != want {
		t.Errorf("offline notice:\n%s\nwant:\n%s", b.String(), want)
	}
}
