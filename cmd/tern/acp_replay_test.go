package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/models/ollamatest"
)

// A loaded session replays an accepted plan as the plan update the editor
// showed when it was accepted, not only as the answer's text.
func TestACPReplayPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected("accept-plan")
	}
	f.srv.Script(ollamatest.Reply{Content: "1. Change the greeting\n2. Run the tests"}, ollamatest.Reply{Content: "Done as planned."})
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("plan the change")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	before := len(r.raw.String())
	if _, err := r.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: f.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	replay := r.raw.String()[before:]
	accepted := strings.Index(replay, "(plan accepted: carry it out)")
	plan := strings.Index(replay, `{"entries":[{"content":"Change the greeting"`)
	if accepted < 0 || plan < accepted || !strings.Contains(replay[plan:], `"content":"Run the tests"`) || strings.Index(replay, "Done as planned.") < plan {
		t.Errorf("the replay does not show the accepted plan as a plan update after its acceptance:\n%s", replay)
	}
}

// A call that never had a result (tern was killed while it ran) is
// replayed as failed, not completed: what the model was told of it is
// that it did not finish.
func TestACPReplayInterruptedCall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newFixture(t)
	bin := buildTern(t)
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"sleep 20"}`}}})
	cmd := exec.CommandContext(t.Context(), bin, "acp", "--dir", f.dir, "--root", f.dir, "--tier", "2", "--yes")
	cmd.Env = f.binaryEnv()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	until := func(wants ...string) string {
		t.Helper()
		for lines.Scan() {
			if ok := !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(lines.Text(), w) }); ok {
				return lines.Text()
			}
		}
		t.Fatalf("tern acp ended without a line holding %q", wants)
		return ""
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+f.dir+`","mcpServers":[]}}`+"\n")
	var created struct{ Result struct{ SessionID string } }
	json.Unmarshal([]byte(until(`"id":2`, `"result"`)), &created)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+created.Result.SessionID+`","prompt":[{"type":"text","text":"wait a minute"}]}}`+"\n")
	until(`"sessionUpdate":"tool_call"`, "sleep 20")
	cmd.Process.Kill()
	cmd.Wait()

	r := f.startACP(t)
	if _, err := r.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(created.Result.SessionID), Cwd: f.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if line := r.waitLine(t, `"sessionUpdate":"tool_call_update"`, "interrupted"); !strings.Contains(line, `"status":"failed"`) {
		t.Errorf("the interrupted call is replayed as %s", line)
	}
}
