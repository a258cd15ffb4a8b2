package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

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

// jsonOf is v as JSON, for messages.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
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

// The model's thinking reaches the editor as agent_thought_chunk when
// thinking is on (think in the config), and not at all when it is off.
func TestACPThoughtsOnlyWhenThinkingIsOn(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		f := newFixture(t)
		if on {
			f.config("think = \"true\"\n")
		}
		r := f.startACP(t)
		id := r.newSession(t, f.dir)
		f.srv.Script(ollamatest.Reply{Thinking: "pondering", Content: "Done."})
		r.prompt(t, id, sdk.TextBlock("what is this?"))
		r.waitLine(t, `"stopReason":"end_turn"`)
		if got := strings.Contains(r.raw.String(), `"pondering"`); got != on {
			t.Errorf("think on %v: the thinking was sent %v:\n%s", on, got, r.raw.String())
		} else if on {
			r.waitLine(t, "agent_thought_chunk", `"pondering"`)
		}
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
