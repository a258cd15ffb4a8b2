// Package acp is tern's Agent Client Protocol front end (tern acp): an
// editor (Zed, a JetBrains IDE, Neovim, VS Code) starts tern and talks
// JSON-RPC to it over stdin and stdout. A prompt runs the same turn as
// tern ask and the TUI — the session comes from package main's one
// constructor — and the agent's events become session updates: streamed
// text and thoughts, tool calls with their kind, files and diffs. Tiers
// and plan mode are the session's modes; approvals are permission
// requests; when the editor offers them, its file system and terminals
// are the file tools' and run_command's hands. The MCP servers it passes
// are handed to package main, which runs them beside tern's config's.
//
// Like tui, acp talks only to agent, session and models (and the ACP
// SDK); what it needs of a session it declares (Session), and package
// main adapts the runner to it. It must not import tools, the index or
// the model servers.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/session"
)

// Deps is what Serve needs of package main.
type Deps struct {
	// Open opens a session in o.Dir: a new one, or the stored one
	// o.Resume names.
	Open func(ctx context.Context, o OpenOptions) (Session, error)
	// List lists the sessions stored in the workspace dir, newest first.
	List func(ctx context.Context, dir string) ([]session.Session, error)
	// Place checks a directory the client asks a session to work in,
	// with a message for the user when it may not.
	Place func(dir string) error
	// Version is tern's, for the client's about box.
	Version string
	// Log gets what goes wrong on the connection; nil discards it.
	Log *slog.Logger
}

// afterReady is a reader whose reads wait until ready is closed.
type afterReady struct {
	ready <-chan struct{}
	r     io.Reader
}

func (g afterReady) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}

// shutdownGrace bounds how long Serve waits, once the client has gone,
// for the turns it cancelled to save what they had.
const shutdownGrace = 10 * time.Second

// Serve speaks ACP on in and out until the client closes in or ctx is
// done; then it cancels the turns in flight, waits for them to save what
// they had, and closes the sessions.
func Serve(ctx context.Context, in io.Reader, out io.Writer, d Deps) error {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	w := &lineWriter{w: out}
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	a := &agentSide{deps: d, w: w, life: life, sessions: map[string]*live{}}
	// The SDK reads, and serves what it reads, as soon as the connection
	// exists: the input waits until the connection is set up.
	ready := make(chan struct{})
	a.conn = sdk.NewAgentSideConnection(a, w, afterReady{ready, screen(in, w, d.Log)})
	a.conn.SetLogger(d.Log)
	close(ready)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.mu.Lock()
	stop() // no turn starts after this
	a.mu.Unlock()
	done := make(chan struct{})
	go func() {
		a.turns.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(shutdownGrace):
		d.Log.Warn("turns still running at exit")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for id, s := range a.sessions {
		errs = append(errs, s.s.Close())
		delete(a.sessions, id)
	}
	return errors.Join(errs...)
}

// agentSide is tern's side of one connection: the sdk.Agent the SDK
// calls with the client's requests.
type agentSide struct {
	deps Deps
	conn *sdk.AgentSideConnection
	w    *lineWriter // what the SDK and screen write to
	// life ends with the connection: updates are sent and requests made
	// with it, so that they outlive a cancelled turn but not the client.
	life context.Context

	mu sync.Mutex
	// client is what the client said it can do, at initialize.
	client   sdk.ClientCapabilities
	sessions map[string]*live
	// turns counts the prompts in flight, for the shutdown.
	turns sync.WaitGroup
}

var (
	_ sdk.Agent       = (*agentSide)(nil)
	_ sdk.AgentLoader = (*agentSide)(nil)
)

// Initialize agrees on the protocol version and says what tern does:
// load and list its stored sessions, close them, take prompts of text
// and resource links (the files an editor attaches), which every agent
// must, and start the editor's MCP servers over stdio (which every agent
// must too) and over HTTP.
func (a *agentSide) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	version := p.ProtocolVersion
	if version > sdk.ProtocolVersionNumber || version < 1 {
		version = sdk.ProtocolVersionNumber
	}
	title := "tern"
	return sdk.InitializeResponse{
		ProtocolVersion: version,
		AgentInfo:       &sdk.Implementation{Name: "tern", Title: &title, Version: a.deps.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:     true,
			McpCapabilities: sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:  &sdk.SessionListCapabilities{},
				Close: &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate is never needed: tern offers no authentication methods.
func (a *agentSide) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession opens a session whose workspace is the client's cwd.
func (a *agentSide) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	l, err := a.open(ctx, p.Cwd, "", p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// The client learns the session's id from the response; the
	// session's notices and what the user can type follow it.
	a.w.afterOpened(l.id, l.greet)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(l.id), Modes: l.modes()}, nil
}

// LoadSession opens a stored session and replays its conversation as
// updates before answering, as the protocol asks.
func (a *agentSide) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	a.mu.Lock()
	_, open := a.sessions[string(p.SessionId)]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open on this connection", p.SessionId)})
	}
	l, err := a.open(ctx, p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	l.replay(ctx)
	l.greet()
	return sdk.LoadSessionResponse{Modes: l.modes()}, nil
}

// open checks dir and opens a session in it, new when resume is "",
// with the MCP servers the editor passed.
func (a *agentSide) open(ctx context.Context, dir, resume string, servers []sdk.McpServer) (*live, error) {
	if err := a.deps.Place(dir); err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error(), "cwd": dir})
	}
	a.mu.Lock()
	caps := a.client
	a.mu.Unlock()
	l := &live{a: a, dir: filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(l.dir); err == nil {
		l.real = real
	}
	o := OpenOptions{Dir: dir, Resume: resume, Approver: l, Ask: l.Ask}
	o.MCPServers, l.unused = mcpServers(servers)
	if caps.Fs.ReadTextFile && caps.Fs.WriteTextFile {
		o.Files = editorFiles{l}
	}
	if caps.Terminal {
		o.Terminal = &Terminal{l: l}
	}
	s, err := a.deps.Open(ctx, o)
	if err != nil {
		if resume != "" && errors.Is(err, session.ErrNotFound) {
			return nil, notFound(resume, err.Error())
		}
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	l.s, l.id = s, s.ID()
	l.mode = l.currentMode()
	a.mu.Lock()
	a.sessions[l.id] = l
	a.mu.Unlock()
	return l, nil
}

// session finds an open session, or says there is none.
func (a *agentSide) session(id sdk.SessionId) (*live, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.sessions[string(id)]
	if !ok {
		return nil, notFound(string(id), "")
	}
	return l, nil
}

// notFound is the protocol's error for a session that is not open.
func notFound(id, detail string) *sdk.RequestError {
	msg := fmt.Sprintf("no session %q is open on this connection: create one with session/new or open a stored one with session/load", id)
	if detail != "" {
		msg = detail
	}
	return &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"error": msg, "sessionId": id}}
}

// ListSessions lists the sessions stored in the workspace of cwd.
func (a *agentSide) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	if p.Cwd == nil || *p.Cwd == "" {
		return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{
			"error": "cwd is required: tern keeps the sessions of each workspace in it"})
	}
	if err := a.deps.Place(*p.Cwd); err != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error(), "cwd": *p.Cwd})
	}
	list, err := a.deps.List(ctx, *p.Cwd)
	if err != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, s := range list {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(s.ID), Cwd: *p.Cwd}
		if s.Title != "" {
			info.Title = &s.Title
		}
		updated := s.Updated.UTC().Format(time.RFC3339)
		info.UpdatedAt = &updated
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// Cancel stops the session's turn, as Ctrl+C does in the TUI; the SDK
// has already cancelled the prompt's context. The session stays valid.
func (a *agentSide) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if l, err := a.session(p.SessionId); err == nil {
		l.cancelTurn()
	}
	return nil
}

// CloseSession cancels the session's turn and closes it; it stays in the
// store, to be loaded again.
func (a *agentSide) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	l, err := a.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	l.cancelTurn()
	l.turn.Lock() // the turn ends before the session closes
	defer l.turn.Unlock()
	a.mu.Lock()
	delete(a.sessions, l.id)
	a.mu.Unlock()
	if err := l.s.Close(); err != nil {
		return sdk.CloseSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.CloseSessionResponse{}, nil
}

// ResumeSession is not offered: session/load does it, with the history.
func (a *agentSide) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption is not offered: tern's settings are its modes.
func (a *agentSide) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// SetSessionMode switches the session's mode: a tier, or plan mode.
func (a *agentSide) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	l, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := l.setMode(ctx, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error(), "modeId": p.ModeId})
	}
	return sdk.SetSessionModeResponse{}, nil
}

// Prompt runs one turn of the session on the prompt.
func (a *agentSide) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	l, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	a.mu.Lock()
	if a.life.Err() != nil {
		a.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": "tern is shutting down"})
	}
	a.turns.Add(1)
	a.mu.Unlock()
	defer a.turns.Done()
	return l.prompt(ctx, p.Prompt)
}
