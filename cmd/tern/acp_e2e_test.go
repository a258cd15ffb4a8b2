package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/models/ollamatest"
)

// acpClientDir holds the Node editor of the end-to-end tests: a short
// script over the official ACP TypeScript SDK, pinned in its
// package-lock.json (`npm ci` there installs it; .ci/run does).
const acpClientDir = "testdata/acpclient"

// acpStep is one step of the Node editor's plan, with what it saw.
type acpStep struct {
	Op          string            `json:"op"`
	Text        string            `json:"text,omitempty"`
	Mode        string            `json:"mode,omitempty"`
	Answers     []string          `json:"answers,omitempty"`
	CancelAfter string            `json:"cancelAfter,omitempty"`
	Result      json.RawMessage   `json:"result,omitempty"`
	Error       *json.RawMessage  `json:"error,omitempty"`
	Updates     []map[string]any  `json:"updates,omitempty"`
	Permissions []json.RawMessage `json:"permissions,omitempty"`
	Reads       []string          `json:"reads,omitempty"`
	Writes      []struct{ Path, Content string }
	Terminals   []json.RawMessage `json:"terminals,omitempty"`
	ExitCode    *int              `json:"exitCode,omitempty"`
}

// acpReport is what the Node editor saw.
type acpReport struct {
	Steps    []acpStep         `json:"steps"`
	Stderr   string            `json:"stderr"`
	ExitCode int               `json:"exitCode"`
	Buffers  map[string]string `json:"buffers"`
}

// runACPClient runs the Node editor on plan with tern's binary as its
// agent and returns what it saw.
func runACPClient(t *testing.T, dir string, env []string, plan map[string]any) acpReport {
	t.Helper()
	node := testenv.Program(t, "node", "apt-get install nodejs npm")
	if _, err := os.Stat(filepath.Join(acpClientDir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		testenv.Missing(t, "the ACP TypeScript SDK (node_modules)", "npm ci in cmd/tern/"+acpClientDir)
	}
	tmp := t.TempDir()
	planPath, reportPath := filepath.Join(tmp, "plan.json"), filepath.Join(tmp, "report.json")
	data, _ := json.Marshal(plan)
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join(acpClientDir, "client.mjs"), planPath, reportPath)
	cmd.Env = env
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Node editor failed: %v\n%s", err, out)
	}
	var rep acpReport
	data, err = os.ReadFile(reportPath)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Fatalf("the Node editor's report: %v\n%s", err, out)
	}
	for _, s := range rep.Steps {
		if s.Error != nil {
			t.Errorf("step %s %q failed: %s", s.Op, s.Text+s.Mode, *s.Error)
		}
	}
	if t.Failed() {
		t.Logf("tern's stderr:\n%s", rep.Stderr)
	}
	return rep
}

// stopReason is a prompt step's stop reason.
func (s acpStep) stopReason() string {
	var r struct{ StopReason string }
	json.Unmarshal(s.Result, &r)
	return r.StopReason
}

// kinds lists the kinds of the step's updates, in order.
func (s acpStep) kinds() []string {
	var out []string
	for _, u := range s.Updates {
		out = append(out, u["sessionUpdate"].(string))
	}
	return out
}

// text is everything the step's updates say, as JSON, for searching,
// followed by the answer's streamed chunks joined.
func (s acpStep) text() string {
	b, _ := json.Marshal(s.Updates)
	var said strings.Builder
	for _, u := range s.Updates {
		if c, ok := u["content"].(map[string]any); ok && u["sessionUpdate"] == "agent_message_chunk" {
			said.WriteString(c["text"].(string))
		}
	}
	return string(b) + "\n" + said.String()
}

// The official ACP TypeScript SDK, as an editor, drives tern acp against
// the fake Ollama: initialize, a new session, a prompt whose model reads
// the editor's unsaved buffer and edits it through fs/write_text_file
// (permission allowed), an edit rejected, a mode change to plan mode and
// back, a command run in the editor's terminal, a cancel mid-stream, and
// the session listed and loaded in a new tern process, where it goes on.
func TestACPEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	f := newFixture(t)
	bin := buildTern(t)
	cmdtest.GitCommit(t, f.dir) // for the checkpoint before the first change
	readme, mainGo := filepath.Join(f.dir, "README.md"), filepath.Join(f.dir, "main.go")
	slow := make([]string, 400)
	for i := range slow {
		slow[i] = "word "
	}
	f.srv.Script(
		// "Fix": reads the buffer, edits it, answers.
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"README.md","old_string":"teh demo","new_string":"the demo"}`}}},
		ollamatest.Reply{Content: "Fixed the typo."},
		// An edit the user rejects.
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"main.go"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"main.go","old_string":"hi","new_string":"hello"}`}}},
		ollamatest.Reply{Content: "Left main.go alone."},
		// Plan mode: a plan, kept.
		ollamatest.Reply{Content: "1. Add greet_test.go\n2. Run go test"},
		// A command in the editor's terminal.
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"echo hi from the terminal"}`}}},
		ollamatest.Reply{Content: "It printed a greeting."},
		// A long answer, cancelled.
		ollamatest.Reply{Chunks: slow, ChunkDelay: 20 * time.Millisecond},
		// The loaded session goes on.
		ollamatest.Reply{Content: "Still here."},
	)
	ternCmd := []string{bin, "acp", "--dir", f.dir, "--root", f.dir}
	env := f.binaryEnv()
	rep := runACPClient(t, f.dir, env, map[string]any{
		"command": ternCmd,
		"cwd":     f.dir,
		"buffers": map[string]string{"README.md": "# demo\nThis is teh demo (unsaved).\n"},
		"steps": []acpStep{
			{Op: "initialize"},
			{Op: "new"},
			{Op: "prompt", Text: "Fix the typo in README.md", Answers: []string{"allow_once"}},
			{Op: "prompt", Text: "Also change the greeting in main.go", Answers: []string{"reject_once"}},
			{Op: "mode", Mode: "plan"},
			{Op: "prompt", Text: "Plan a test for the greeting", Answers: []string{"reject_once"}},
			{Op: "mode", Mode: "commands"},
			{Op: "prompt", Text: "Run echo in the terminal", Answers: []string{"allow_once"}},
			{Op: "prompt", Text: "Tell me a long story", CancelAfter: "agent_message_chunk"},
			{Op: "restart"},
			{Op: "initialize"},
			{Op: "list"},
			{Op: "load"},
			{Op: "prompt", Text: "Still there?"},
		},
	})
	if len(rep.Steps) != 14 {
		t.Fatalf("the editor ran %d steps:\n%+v", len(rep.Steps), rep)
	}
	step := func(i int) acpStep { return rep.Steps[i] }

	var init struct {
		ProtocolVersion   int
		AgentCapabilities struct {
			LoadSession         bool
			SessionCapabilities struct{ List *struct{} }
		}
	}
	json.Unmarshal(step(0).Result, &init)
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || init.AgentCapabilities.SessionCapabilities.List == nil {
		t.Errorf("initialize = %s", step(0).Result)
	}
	var created struct {
		SessionID string
		Modes     struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct{ ID string }
		}
	}
	json.Unmarshal(step(1).Result, &created)
	if created.SessionID == "" || created.Modes.CurrentModeID != "read" || len(created.Modes.AvailableModes) != 5 {
		t.Errorf("session/new = %s", step(1).Result)
	}

	// The fix: the model read the unsaved buffer through the editor, the
	// tier unlocked by "fix" came as a mode update, the edit was asked
	// about with its diff and landed in the editor, not on disk.
	fix := step(2)
	if fix.stopReason() != "end_turn" || !slices.Contains(fix.Reads, readme) {
		t.Errorf("fix: stop %q, reads %v", fix.stopReason(), fix.Reads)
	}
	for _, want := range []string{`"currentModeId":"edit"`, "checkpoint", "saved before the first change", `"kind":"read"`, `"kind":"edit"`, "This is teh demo (unsaved)", `"type":"diff"`,
		`"newText":"# demo\nThis is the demo (unsaved).\n"`, `"status":"completed"`, "Fixed the typo."} {
		if !strings.Contains(strings.ReplaceAll(fix.text(), `\n`, "\n"), strings.ReplaceAll(want, `\n`, "\n")) {
			t.Errorf("fix's updates lack %s:\n%s", want, fix.text())
		}
	}
	if len(fix.Permissions) != 1 || !strings.Contains(string(fix.Permissions[0]), "teh demo") || !strings.Contains(string(fix.Permissions[0]), "allow_always") {
		t.Errorf("fix's permission requests: %s", fix.Permissions)
	}
	if len(fix.Writes) != 1 || fix.Writes[0].Path != readme || fix.Writes[0].Content != "# demo\nThis is the demo (unsaved).\n" {
		t.Errorf("fix's writes: %+v", fix.Writes)
	}
	if disk, _ := os.ReadFile(readme); string(disk) != "# demo\nA demo repository.\n" {
		t.Errorf("the edit reached the disk, not the editor: %q", disk)
	}

	rejected := step(3)
	if rejected.stopReason() != "end_turn" || len(rejected.Writes) != 0 || !strings.Contains(rejected.text(), `"status":"failed"`) ||
		!strings.Contains(rejected.text(), "denied") {
		t.Errorf("rejected edit: writes %+v, updates %s", rejected.Writes, rejected.text())
	}
	if disk, _ := os.ReadFile(mainGo); !strings.Contains(string(disk), `println("hi")`) {
		t.Errorf("the rejected edit changed main.go: %s", disk)
	}

	// Plan mode offers the model only the read-only tools, ends with a
	// plan the editor may accept, and is left for a tier.
	planned := step(5)
	if planned.stopReason() != "end_turn" || len(planned.Permissions) != 1 || !strings.Contains(string(planned.Permissions[0]), "Add greet_test.go") {
		t.Errorf("plan turn: stop %q, permissions %s", planned.stopReason(), planned.Permissions)
	}
	planReq := f.srv.Requests()[6]
	for _, tool := range planReq.Tools {
		if tool.Function.Name == "edit_file" || tool.Function.Name == "run_command" {
			t.Errorf("plan mode offered %s", tool.Function.Name)
		}
	}

	// The command ran in the editor's terminal and its output reached the model.
	ran := step(7)
	if ran.stopReason() != "end_turn" || len(ran.Terminals) != 1 || !strings.Contains(ran.text(), `"type":"terminal"`) || !strings.Contains(ran.text(), `"kind":"execute"`) {
		t.Errorf("terminal turn: stop %q, terminals %s, updates %s", ran.stopReason(), ran.Terminals, ran.text())
	}
	if msgs := f.srv.Requests()[8].Messages; !strings.Contains(msgs[len(msgs)-1].Content, "hi from the terminal") {
		t.Errorf("the model did not get the terminal's output: %+v", msgs[len(msgs)-1])
	}

	if c := step(8); c.stopReason() != "cancelled" {
		t.Errorf("cancelled turn stopped with %q", c.stopReason())
	}
	if code := step(9).ExitCode; code == nil || *code != 0 {
		t.Errorf("tern acp's exit when the editor closed its stdin: %v", code)
	}

	// A new process lists and loads the session, replays it, and goes on.
	if !strings.Contains(string(step(11).Result), created.SessionID) || !strings.Contains(string(step(11).Result), "Fix the typo") {
		t.Errorf("session/list = %s", step(11).Result)
	}
	loaded := step(12)
	for _, want := range []string{`"sessionUpdate":"user_message_chunk"`, "Fix the typo in README.md", `"sessionUpdate":"tool_call"`, "Fixed the typo.",
		`"sessionUpdate":"available_commands_update"`, `"type":"diff"`, `"newText":"# demo\nThis is the demo (unsaved).\n"`} {
		if !strings.Contains(loaded.text(), want) {
			t.Errorf("the load's replay lacks %s:\n%s", want, loaded.text())
		}
	}
	if on := step(13); on.stopReason() != "end_turn" || !strings.Contains(on.text(), "Still here.") {
		t.Errorf("prompt after the load: %q %s", on.stopReason(), on.text())
	}
	last := f.srv.Requests()[len(f.srv.Requests())-1]
	if !slices.ContainsFunc(last.Messages, func(m api.Message) bool { return strings.Contains(m.Content, "Fix the typo in README.md") }) {
		t.Error("the loaded session's history did not reach the model")
	}
	if rep.ExitCode != 0 {
		t.Errorf("tern acp exited %d", rep.ExitCode)
	}
}
