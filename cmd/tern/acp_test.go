package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"

	"github.com/ternhq/tern/models/ollamatest"
)

// acpClient is an editor as the ACP SDK's own client: it records the
// updates, serves its buffers as the file system, and answers permission
// requests with answer (nil: never).
type acpClient struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	files   map[string]string
	asked   chan sdk.RequestPermissionRequest
	answer  func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome
}

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	return nil
}

func (c *acpClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.asked <- p
	c.mu.Lock()
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		<-ctx.Done() // an editor that never answers
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
	return sdk.RequestPermissionResponse{Outcome: answer(p)}, nil
}

func (c *acpClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if text, ok := c.files[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(data)}, err
}

func (c *acpClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no terminals here")
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, nil
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, nil
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, nil
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, nil
}

// acpRun is tern acp running in-process, with the SDK's client on its
// stdio; raw holds every line tern wrote.
type acpRun struct {
	conn   *sdk.ClientSideConnection
	client *acpClient
	in     *io.PipeWriter
	raw    *syncBuffer
	stderr *syncBuffer
	exited chan int
}

func (f *fixture) startACP(t *testing.T, args ...string) *acpRun {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &acpRun{client: &acpClient{files: map[string]string{}, asked: make(chan sdk.RequestPermissionRequest, 4)},
		in: inW, raw: &syncBuffer{}, stderr: &syncBuffer{}, exited: make(chan int, 1)}
	go func() {
		args := append([]string{"acp", "--dir", f.dir, "--root", f.dir}, args...)
		r.exited <- Main(context.WithoutCancel(t.Context()), args, inR, io.MultiWriter(outW, r.raw), r.stderr, func(k string) string { return f.env[k] })
		outW.Close()
	}()
	r.conn = sdk.NewClientSideConnection(r.client, inW, outR)
	r.conn.SetLogger(slog.New(slog.DiscardHandler)) // it logs the error replies it reads as strays
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-r.exited:
		case <-time.After(30 * time.Second):
			t.Error("tern acp did not exit after its stdin closed")
		}
	})
	return r
}

// newSession initializes the connection as an editor with a file system
// and opens a session in the fixture's workspace.
func (r *acpRun) newSession(t *testing.T, dir string) sdk.SessionId {
	t.Helper()
	ctx := t.Context()
	if _, err := r.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	s, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr:\n%s", err, r.stderr.String())
	}
	return s.SessionId
}

// wantCode checks that err is the protocol's error code, with words.
func wantCode(t *testing.T, what string, err error, code int, words string) {
	t.Helper()
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != code || !strings.Contains(re.Error(), words) {
		t.Errorf("%s: error %v, want code %d saying %q", what, err, code, words)
	}
}

// waitLine waits for tern to have written a line holding all of wants.
func (r *acpRun) waitLine(t *testing.T, wants ...string) string {
	t.Helper()
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) {
		for line := range strings.SplitSeq(r.raw.String(), "\n") {
			ok := true
			for _, w := range wants {
				ok = ok && strings.Contains(line, w)
			}
			if ok {
				return line
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("tern never wrote a line with %q; it wrote:\n%s", wants, r.raw.String())
	return ""
}

// Bad input from an editor gets the protocol's error, and loses nothing:
// the connection and its sessions go on.
func TestACPBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()

	io.WriteString(r.in, "{not json\n")
	r.waitLine(t, `"code":-32700`, `"id":null`, "not JSON")
	io.WriteString(r.in, `{"jsonrpc":"2.0","id":"x1","method":"session/teleport","params":{}}`+"\n")
	r.waitLine(t, `"id":"x1"`, `"code":-32601`, "session/teleport")
	io.WriteString(r.in, `{"jsonrpc":"2.0","id":7}`+"\n")
	r.waitLine(t, `"id":7`, `"code":-32600`)
	io.WriteString(r.in, `[1,2]`+"\n")
	r.waitLine(t, `"code":-32600`, "batches")

	_, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: "20200101-0000-dead", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	wantCode(t, "prompt for an unknown session", err, -32002, "no session")
	_, err = r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	wantCode(t, "cwd outside the roots", err, -32602, "outside the directories tern acp may work in")
	_, err = r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []sdk.McpServer{}})
	wantCode(t, "relative cwd", err, -32602, "not an absolute path")
	_, err = r.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "20200101-0000-dead", Cwd: f.dir, McpServers: []sdk.McpServer{}})
	wantCode(t, "load of an unknown session", err, -32002, "no session")
	_, err = r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"})
	wantCode(t, "unknown mode", err, -32602, "the modes are read, edit, commands, external, plan")
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.ImageBlock("aGk=", "image/png")}})
	if err != nil || resp.StopReason != sdk.StopReasonRefusal {
		t.Errorf("an image-only prompt: %v, %v; want a refusal", resp, err)
	}

	before := len(f.srv.Requests())
	resp, err = r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("/compcat")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn || len(f.srv.Requests()) != before {
		t.Errorf("an unknown command: %v, %v; %d model requests", resp, err, len(f.srv.Requests())-before)
	}
	r.waitLine(t, "There is no command /compcat", "/compact")

	// After all that, the session still answers.
	f.srv.Script(ollamatest.Reply{Content: "Still here."})
	resp, err = r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("are you there?")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after bad input: %v, %v\nstderr:\n%s", resp, err, r.stderr.String())
	}
	if !strings.Contains(r.raw.String(), "Still here.") && !strings.Contains(r.raw.String(), "Still") {
		t.Errorf("the answer was not streamed:\n%s", r.raw.String())
	}
}

// An editor that never answers a permission request keeps the turn
// waiting; session/cancel ends it (cancelled) and leaves a session that
// takes the next prompt; and a question still open never holds tern's
// exit when the editor goes.
func TestACPUnansweredPermission(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "1")
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	write := ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hello\n"}`}}}
	f.srv.Script(write, ollamatest.Reply{Content: "Done after all."})

	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("write notes.txt")}})
		done <- result{resp, err}
	}()
	var asked sdk.RequestPermissionRequest
	select {
	case asked = <-r.client.asked:
	case res := <-done:
		t.Fatalf("the turn ended before asking: %+v\nstderr:\n%s", res, r.stderr.String())
	}
	if len(asked.ToolCall.Content) == 0 || asked.ToolCall.Content[0].Diff == nil || asked.ToolCall.Content[0].Diff.NewText != "hello\n" {
		t.Errorf("the question does not show the new file as a diff: %+v", asked.ToolCall)
	}
	select {
	case res := <-done:
		t.Fatalf("the turn ended while the question was open: %+v", res)
	default:
	}
	if err := r.conn.Cancel(ctx, sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || res.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled turn: %+v, %v", res.resp, res.err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); err == nil {
		t.Error("the unanswered write ran")
	}

	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("and now?")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after the cancel: %+v, %v", resp, err)
	}

	// A question open when the editor goes does not hold tern.
	f.srv.Script(write)
	go r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("write it again")}})
	<-r.client.asked
	r.in.Close()
	select {
	case code := <-r.exited:
		r.exited <- code // for the cleanup
		if code != 0 {
			t.Errorf("tern acp exited %d; stderr:\n%s", code, r.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tern acp did not exit with a question open after the editor closed its stdin")
	}
}

// jsonOf is v as JSON, for messages.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ask_user's questions reach the editor as permission prompts whose
// options are the answers; a plan kept for later is carried out with
// /accept, sent as a plan update, and the accepted plan's tier comes as a
// mode update; how the session opened (the model tern chose) is said.
func TestACPQuestionsAndPlans(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		want := map[string]string{"Which greeting?": "hello", "Accept the plan and carry it out?": "Keep planning (your next prompt comments on it)"}[*p.ToolCall.Title]
		for _, o := range p.Options {
			if o.Name == want {
				return sdk.NewRequestPermissionOutcomeSelected(o.OptionId)
			}
		}
		return sdk.NewRequestPermissionOutcomeCancelled()
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Which greeting?","options":["hi","hello"]}]}`}}},
		ollamatest.Reply{Content: "Going with hello."},
		ollamatest.Reply{Content: "1. Change the greeting\n2. Run the tests"},
		ollamatest.Reply{Content: "Done as planned."},
	)
	prompt := func(text string) sdk.StopReason {
		t.Helper()
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			t.Fatalf("prompt %q: %v\nstderr:\n%s", text, err, r.stderr.String())
		}
		return resp.StopReason
	}
	prompt("greet the user")
	<-r.client.asked
	if got := f.srv.Requests()[1].Messages; !strings.Contains(got[len(got)-1].Content, "hello") {
		t.Errorf("the model did not get the answer: %+v", got[len(got)-1])
	}
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	prompt("plan the change")
	<-r.client.asked
	if stop := prompt("/accept and be quick"); stop != sdk.StopReasonEndTurn {
		t.Errorf("/accept stopped with %s", stop)
	}
	last := f.srv.Requests()[3].Messages
	if !strings.Contains(last[len(last)-1].Content, "and be quick") {
		t.Errorf("the accepting turn lacks the note: %+v", last[len(last)-1])
	}
	raw := r.raw.String()
	for _, want := range []string{`"sessionUpdate":"plan"`, `"content":"Change the greeting"`, `"currentModeId":"edit"`, `"text":" planned."`,
		"using qwen3:8b (best installed model", `"name":"accept"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("tern never wrote %s:\n%s", want, raw)
		}
	}
}

// TestACPNewSessionUpdatesFollowItsResponse: what tern tells the client
// about a new session (its slash commands, its notices) comes after the
// session/new response that gives the client the session's id, as an
// editor that drops updates for a session it has not heard of needs.
func TestACPNewSessionUpdatesFollowItsResponse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	for i := range 5 {
		var id sdk.SessionId
		if i == 0 {
			id = r.newSession(t, f.dir)
		} else {
			s, err := r.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: f.dir, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			id = s.SessionId
		}
		session := `"sessionId":"` + string(id) + `"`
		r.waitLine(t, session, "available_commands_update")
		response, update := -1, -1
		for n, line := range strings.Split(r.raw.String(), "\n") {
			switch {
			case response < 0 && strings.Contains(line, session) && strings.Contains(line, `"result"`):
				response = n
			case update < 0 && strings.Contains(line, session) && strings.Contains(line, `"sessionUpdate"`):
				update = n
			}
		}
		if response < 0 || update < response {
			t.Fatalf("session %s: its first update is line %d, its session/new response line %d:\n%s", id, update, response, r.raw.String())
		}
	}
}

// allowFirst makes the client answer every permission request with its
// first option: allow once, accept the plan, the first answer.
func (r *acpRun) allowFirst() {
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)
	}
}

// prompt runs a turn on blocks and wants it to end with end_turn.
func (r *acpRun) prompt(t *testing.T, id sdk.SessionId, blocks ...sdk.ContentBlock) {
	t.Helper()
	resp, err := r.conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v\nstderr:\n%s", resp, err, r.stderr.String())
	}
}

// A message over the size tern acp reads gets the protocol's error and
// loses nothing: a request is answered, an editor's answer too large to
// read (a huge buffer for fs/read_text_file) fails the call that asked,
// and the connection and its session go on.
func TestACPOversizedMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	huge := strings.Repeat("x", 11<<20)

	go io.WriteString(r.in, `{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"`+string(id)+`","prompt":[{"type":"text","text":"`+huge+`"}]}}`+"\n")
	r.waitLine(t, `"id":"big"`, `"code":-32600`, "too large")

	big := filepath.Join(f.dir, "big.log")
	if err := os.WriteFile(big, []byte("a small file on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.client.mu.Lock()
	r.client.files[big] = huge // the editor's buffer of it
	r.client.mu.Unlock()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"big.log"}`}}},
		ollamatest.Reply{Content: "Too big to read."},
		ollamatest.Reply{Content: "Still here."},
	)
	r.prompt(t, id, sdk.TextBlock("read big.log"))
	r.prompt(t, id, sdk.TextBlock("are you there?"))
	r.waitLine(t, `"status":"failed"`, "too large")
	r.waitLine(t, "Still")
}

// A call the user is asked about goes back to in_progress once allowed:
// the permission request shows it pending, and a client that takes the
// request's status for the call's (the protocol's pending is "awaiting
// approval") must not show it waiting while it runs.
func TestACPToolCallStatusAfterApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "1")
	id := r.newSession(t, f.dir)
	r.allowFirst()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hello\n"}`}}},
		ollamatest.Reply{Content: "Written."},
	)
	r.prompt(t, id, sdk.TextBlock("write notes.txt"))
	<-r.client.asked
	var statuses []string
	for line := range strings.SplitSeq(r.raw.String(), "\n") {
		var msg struct {
			Method string
			Params struct {
				Update   struct{ ToolCallID, Status string }
				ToolCall struct{ ToolCallID, Status string }
			}
		}
		json.Unmarshal([]byte(line), &msg)
		call := msg.Params.Update
		if msg.Method == "session/request_permission" {
			call = msg.Params.ToolCall
		}
		if call.ToolCallID != "" && call.Status != "" {
			statuses = append(statuses, msg.Method+" "+call.Status)
		}
	}
	want := []string{"session/update in_progress", "session/request_permission pending", "session/update in_progress", "session/update completed"}
	if strings.Join(statuses, ", ") != strings.Join(want, ", ") {
		t.Errorf("the call's statuses: %q, want %q", statuses, want)
	}
}

// The editor offers what the TUI's p does: allow the commands that start
// as this one does for the rest of the session, and not the whole tool.
func TestACPAllowCommandPrefix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "2")
	id := r.newSession(t, f.dir)
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		for _, o := range p.Options {
			if strings.Contains(o.Name, "starting with `ls`") && o.Kind == sdk.PermissionOptionKindAllowAlways {
				return sdk.NewRequestPermissionOutcomeSelected(o.OptionId)
			}
		}
		return sdk.NewRequestPermissionOutcomeCancelled()
	}
	call := func(command string) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: jsonOf(map[string]string{"command": command})}}}
	}
	f.srv.Script(call("ls -la"), call("ls ."), call("cat README.md"), ollamatest.Reply{Content: "Looked."})
	r.prompt(t, id, sdk.TextBlock("look at the history"))
	var asked []string
	for len(r.client.asked) > 0 {
		p := <-r.client.asked
		asked = append(asked, jsonOf(p.ToolCall.RawInput))
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "ls -la") || !strings.Contains(asked[1], "cat README.md") {
		t.Errorf("asked about %q; want ls -la and cat, not the second ls", asked)
	}
}

// A project the editor opened through a symbolic link is its files under
// that link: fs/read_text_file and fs/write_text_file name them as the
// editor does (as the call's locations and diffs do), so the model reads
// the editor's unsaved buffer, not the disk behind it.
func TestACPSymlinkedProject(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(f.dir, link); err != nil {
		t.Fatal(err)
	}
	r := f.startACP(t, "--tier", "1", "--yes")
	id := r.newSession(t, link)
	readme := filepath.Join(link, "README.md")
	r.client.files[readme] = "# demo\nUnsaved in the editor.\n"
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"README.md","old_string":"Unsaved","new_string":"Edited"}`}}},
		ollamatest.Reply{Content: "Done."},
	)
	r.prompt(t, id, sdk.TextBlock("edit README.md"))
	if msgs := f.srv.Requests()[1].Messages; !strings.Contains(msgs[len(msgs)-1].Content, "Unsaved in the editor.") {
		t.Errorf("the model did not read the editor's buffer: %q", msgs[len(msgs)-1].Content)
	}
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	if got := r.client.files[readme]; got != "# demo\nEdited in the editor.\n" {
		t.Errorf("the editor's buffer of %s: %q; its files: %v", readme, got, r.client.files)
	}
}

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

// A mode the editor picks during a turn takes effect when the turn ends,
// and the editor is told so after any mode the turn reported meanwhile (a
// tier the model unlocked): the last mode it hears of is the session's.
func TestACPModeChangeDuringTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	r.allowFirst()
	slow := make([]string, 30)
	for i := range slow {
		slow[i] = "hmm "
	}
	f.srv.Script(
		ollamatest.Reply{Chunks: slow, ChunkDelay: 20 * time.Millisecond,
			ToolCalls: []ollamatest.Call{{Name: "request_tools", Args: `{"tier":1,"reason":"to fix it"}`}}},
		ollamatest.Reply{Content: "Unlocked."},
	)
	done := make(chan error, 1)
	go func() {
		_, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("look around")}})
		done <- err
	}()
	r.waitLine(t, "agent_message_chunk", "hmm")
	asked := len(r.raw.String())
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var told []string
	for line := range strings.SplitSeq(r.raw.String()[asked:], "\n") {
		var msg struct {
			Params struct {
				Update struct{ CurrentModeID string }
			}
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Params.Update.CurrentModeID != "" {
			told = append(told, msg.Params.Update.CurrentModeID)
		}
	}
	if len(told) == 0 || told[len(told)-1] != "plan" {
		t.Errorf("after asking for plan mode during the turn, the editor was told %q, last not plan:\n%s", told, r.raw.String()[asked:])
	}
}

// A file the editor attaches with a line range in its URI's fragment (a
// selection: #L250:252, as Zed writes its mention URIs) is attached as
// those lines, not as the file's first page.
func TestACPResourceLinkLineRange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var long strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&long, "line %d of the long file\n", i)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "long file.txt"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	f.srv.Script(ollamatest.Reply{Content: "Seen."})
	uri := (&url.URL{Scheme: "file", Path: filepath.Join(f.dir, "long file.txt"), Fragment: "L250:252"}).String()
	r.prompt(t, id, sdk.TextBlock("explain"), sdk.ResourceLinkBlock("long file.txt", uri))
	var sent strings.Builder
	for _, m := range f.srv.Requests()[0].Messages {
		sent.WriteString(m.Content + "\n")
	}
	if !strings.Contains(sent.String(), "line 251 of the long file") || strings.Contains(sent.String(), "line 1 of the long file") {
		t.Errorf("the attachment of %s is not lines 250-252:\n%s", uri, sent.String())
	}
}

// MCP servers the editor passes are not started, and the user is told so
// rather than left to wonder where their tools went.
func TestACPEditorMCPServersNamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	r.newSession(t, f.dir)
	s, err := r.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: f.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "github", Command: "github-mcp", Args: []string{}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r.waitLine(t, `"sessionId":"`+string(s.SessionId)+`"`, "agent_thought_chunk", "MCP servers (github) are not used", "[mcp.servers.NAME]")
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

// A question that is no model's call (ask_user's, a plan to accept) is a
// tool call of its own: announced before the permission request that
// names it, and completed once answered, so that no client is left with
// a request about a call it never heard of, or a card waiting forever.
func TestACPQuestionsAreToolCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	r.allowFirst()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Which greeting?","options":["hi","hello"]}]}`}}},
		ollamatest.Reply{Content: "Going with hi."},
		ollamatest.Reply{Content: "1. Change the greeting"},
		ollamatest.Reply{Content: "Done."},
	)
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("greet")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("plan it")}}); err != nil {
		t.Fatal(err)
	}
	for len(r.client.asked) > 0 {
		asked := <-r.client.asked
		call := `"toolCallId":"` + string(asked.ToolCall.ToolCallId) + `"`
		var seen []string
		for line := range strings.SplitSeq(r.raw.String(), "\n") {
			switch {
			case !strings.Contains(line, call):
			case strings.Contains(line, `"session/request_permission"`):
				seen = append(seen, "asked")
			case strings.Contains(line, `"sessionUpdate":"tool_call"`):
				seen = append(seen, "announced")
			case strings.Contains(line, `"status":"completed"`):
				seen = append(seen, "completed")
			}
		}
		if strings.Join(seen, " ") != "announced asked completed" {
			t.Errorf("%q (%s): %q, want announced, asked, completed", *asked.ToolCall.Title, asked.ToolCall.ToolCallId, seen)
		}
	}
}

// Each /undo question is a tool call of its own: a second one in the
// session does not reuse, and so overwrite, the first one's call.
func TestACPUndoQuestionsAreDistinct(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cmdtest.GitCommit(t, f.dir) // for the checkpoint before the first change
	r := f.startACP(t, "--tier", "1")
	id := r.newSession(t, f.dir)
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		if *p.ToolCall.Title == "Allow undo?" {
			return sdk.NewRequestPermissionOutcomeSelected("reject") // so that the next /undo asks again
		}
		return sdk.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hello\n"}`}}},
		ollamatest.Reply{Content: "Written."},
	)
	r.prompt(t, id, sdk.TextBlock("write notes.txt"))
	if err := os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err) // the editor saves the file it was given
	}
	r.prompt(t, id, sdk.TextBlock("/undo"))
	r.prompt(t, id, sdk.TextBlock("/undo"))
	var calls []string
	for line := range strings.SplitSeq(r.raw.String(), "\n") {
		var msg struct {
			Params struct {
				Update struct{ SessionUpdate, ToolCallID, Title string }
			}
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Params.Update.SessionUpdate == "tool_call" && strings.HasPrefix(msg.Params.Update.Title, "Allow undo") {
			calls = append(calls, msg.Params.Update.ToolCallID)
		}
	}
	if len(calls) != 2 || calls[0] == calls[1] {
		t.Errorf("the /undo questions' tool calls: %q, want two distinct:\n%s", calls, r.raw.String())
	}
}
