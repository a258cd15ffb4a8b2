package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/ternhq/tern/tools/proc"
)

// client is one running language server: its process, the JSON-RPC
// connection to it, the documents tern opened in it and the diagnostics
// it published.
type client struct {
	srv    Server
	root   string
	cmd    *exec.Cmd
	conn   *jsonrpc2.Conn
	stderr *proc.Tail
	log    *slog.Logger
	// info names the server as it introduced itself ("gopls v0.23.0");
	// srv.Command[0] when it did not.
	info string
	// exited is closed once the process has exited; err then says how.
	exited chan struct{}
	err    error
	// heard is when the server last sent anything (Unix nanoseconds): a
	// busy server sends progress and log messages, a hung one nothing.
	heard atomic.Int64

	mu    sync.Mutex
	docs  map[protocol.DocumentURI]*document
	diags map[protocol.DocumentURI]published
	seq   uint64        // counts publishes
	news  chan struct{} // closed and replaced at each publish
}

// startClient starts the server's process in root and does the LSP
// handshake, within ctx.
func startClient(ctx context.Context, srv Server, root string, log *slog.Logger) (*client, error) {
	cmd := exec.Command(srv.Command[0], srv.Command[1:]...)
	cmd.Dir = root
	c := &client{srv: srv, root: root, cmd: cmd, stderr: &proc.Tail{}, log: log, info: filepath.Base(srv.Command[0]),
		exited: make(chan struct{}), docs: map[protocol.DocumentURI]*document{},
		diags: map[protocol.DocumentURI]published{}, news: make(chan struct{})}
	cmd.Stderr = c.stderr
	cmd.WaitDelay = time.Second // a grandchild holding stderr open cannot stall Wait
	proc.Isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s: %w", srv.Command[0], ee.Err)
		}
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		_ = proc.KillGroup(cmd.Process.Pid) // what the server started (tsserver under typescript-language-server)
		c.err = c.explain(err)
		close(c.exited)
	}()
	stream := jsonrpc2.NewBufferedStream(pipe{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle).SuppressErrClosed(),
		jsonrpc2.SetLogger(slogPrinter{log}))
	if err := c.initialize(ctx); err != nil {
		if err = c.cause(err); !c.dead() {
			err = fmt.Errorf("initialize: %w", err)
		}
		c.kill()
		return nil, err
	}
	return c, nil
}

// cause is why a request or notification failed: when the connection
// broke because the server is exiting, how it exited (with its last words
// on stderr) says more than the broken pipe.
func (c *client) cause(err error) error {
	var rpcErr *jsonrpc2.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.As(err, &rpcErr) {
		return err // the server is there; it answered, or not in time
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.exited:
		return c.err
	case <-t.C:
		return err
	}
}

// pipe joins the server's stdout and stdin into the one stream JSON-RPC
// reads and writes.
type pipe struct {
	io.ReadCloser
	in io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.in.Write(b) }

func (p pipe) Close() error { return errors.Join(p.in.Close(), p.ReadCloser.Close()) }

// initializeParams is the initialize request. The client capabilities are
// written out, not made from protocol's structs, whose zero values
// would send nulls where servers expect arrays.
type initializeParams struct {
	ProcessID             int                        `json:"processId"`
	ClientInfo            protocol.ClientInfo        `json:"clientInfo"`
	RootURI               protocol.DocumentURI       `json:"rootUri"`
	RootPath              string                     `json:"rootPath"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
	Capabilities          map[string]any             `json:"capabilities"`
	InitializationOptions any                        `json:"initializationOptions,omitempty"`
}

// capabilities are what tern does with a server: open and change files,
// take diagnostics, ask for definitions and references, answer
// workspace/configuration.
var capabilities = map[string]any{
	"textDocument": map[string]any{
		"synchronization":    map[string]any{"dynamicRegistration": false, "didSave": false},
		"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
		"definition":         map[string]any{"dynamicRegistration": false, "linkSupport": true},
		"references":         map[string]any{"dynamicRegistration": false},
	},
	"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
	// Progress, which tern ignores, shows a loading server alive.
	"window":  map[string]any{"workDoneProgress": true},
	"general": map[string]any{"positionEncodings": []string{"utf-16"}},
}

func (c *client) initialize(ctx context.Context) error {
	root := protocol.URIFromPath(c.root)
	params := initializeParams{
		ProcessID: os.Getpid(), ClientInfo: protocol.ClientInfo{Name: "tern"},
		RootURI: root, RootPath: c.root,
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(root), Name: filepath.Base(c.root)}},
		Capabilities:     capabilities, InitializationOptions: c.srv.InitOptions,
	}
	var result struct {
		ServerInfo *protocol.ServerInfo `json:"serverInfo"`
	}
	if err := c.call(ctx, "initialize", params, &result); err != nil {
		return err
	}
	if si := result.ServerInfo; si != nil && si.Name != "" {
		c.info = strings.TrimSpace(si.Name + " " + version(si.Version))
	}
	return c.notify("initialized", struct{}{})
}

// version is a server's version as it gave it, cut to the version
// itself: gopls gives its whole build information as JSON.
func version(v string) string {
	var build struct{ Version string }
	if json.Unmarshal([]byte(v), &build) == nil {
		v = build.Version
	}
	if f := strings.Fields(v); len(f) > 0 && len(f[0]) <= 40 {
		return f[0]
	}
	return ""
}

// handle answers what the server sends: diagnostics, and the few
// requests a server makes of an editor. It runs on the connection's read
// loop, so it never waits on the server.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	c.heard.Store(time.Now().UnixNano())
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		c.publish(p)
		return nil, nil
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = section(c.srv.Settings, it.Section)
		}
		return out, nil
	case "workspace/workspaceFolders":
		root := protocol.URIFromPath(c.root)
		return []protocol.WorkspaceFolder{{URI: string(root), Name: filepath.Base(c.root)}}, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "tern applies no edits from language servers"}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	}
	if req.Notif {
		return nil, nil // $/progress, window/logMessage, telemetry/event, …
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "tern does not handle " + req.Method}
}

// section is the part of settings a workspace/configuration item asks
// for: "python.analysis" walks the tables; "" is all of them.
func section(settings map[string]any, name string) any {
	if name == "" {
		return settings
	}
	var v any = settings
	for part := range strings.SplitSeq(name, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

// publish records diagnostics the server sent and wakes those waiting.
func (c *client) publish(p protocol.PublishDiagnosticsParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.diags[p.URI] = published{version: p.Version, seq: c.seq, diags: p.Diagnostics}
	close(c.news)
	c.news = make(chan struct{})
}

// writeTimeout bounds a write to a server's input. The pipe takes a
// message at once unless the server stopped reading it: a server that
// has not read one in this time is hung, and is killed.
const writeTimeout = 2 * time.Second

// call sends a request and waits for its answer within ctx.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	w, err := written(c, func() (jsonrpc2.Waiter, error) {
		return c.conn.DispatchCall(context.Background(), method, params)
	})
	if err != nil {
		return err
	}
	if err := w.Wait(ctx, result); err != nil {
		return c.cause(err)
	}
	return nil
}

// notify sends a notification.
func (c *client) notify(method string, params any) error {
	_, err := written(c, func() (struct{}, error) {
		return struct{}{}, c.conn.Notify(context.Background(), method, params)
	})
	return err
}

// written runs send, which writes to the server's input, for at most
// writeTimeout: a server that stopped reading would otherwise block the
// write, and the turn with it, once the pipe is full. It then kills the
// server, which ends the write.
func written[T any](c *client, send func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := send()
		done <- result{v, err}
	}()
	t := time.NewTimer(writeTimeout)
	defer t.Stop()
	var zero T
	select {
	case r := <-done:
		if r.err != nil {
			return r.v, c.cause(r.err)
		}
		return r.v, nil
	case <-t.C:
		c.kill()
		return zero, fmt.Errorf("%s stopped reading its input; killed", c.info)
	case <-c.exited:
		return zero, c.err
	}
}

// heardSince reports whether the server sent anything since t.
func (c *client) heardSince(t time.Time) bool { return c.heard.Load() >= t.UnixNano() }

// dead reports whether the process has exited.
func (c *client) dead() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// kill stops the server at once, with whatever it started.
func (c *client) kill() {
	if c.cmd.Process != nil {
		_ = proc.KillGroup(c.cmd.Process.Pid)
	}
	_ = c.conn.Close()
}

// stop asks the server to shut down and exit, within ctx, and kills it
// when it does not.
func (c *client) stop(ctx context.Context) {
	if !c.dead() {
		if err := c.call(ctx, "shutdown", nil, nil); err == nil {
			_ = c.notify("exit", nil)
		}
	}
	_ = c.conn.Close() // the server reads the end of its input
	select {
	case <-c.exited:
	case <-ctx.Done():
		c.kill()
		<-c.exited
	}
}

// explain says how the process ended, with the last line it wrote to
// stderr, which usually says why.
func (c *client) explain(err error) error {
	msg := "exited"
	if err != nil {
		msg = err.Error()
	}
	if last := c.stderr.Last(); last != "" {
		msg += ": " + last
	}
	return errors.New(msg)
}

// languageID is the LSP language identifier of the file at path, which
// server serves.
func languageID(path, server string) string {
	ext := strings.ToLower(fileExt(path))
	if id, ok := languageIDs[ext]; ok {
		return id
	}
	return server
}

// languageIDs are the identifiers of the LSP specification's table where
// they are not the language's name.
var languageIDs = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python", ".rs": "rust",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".ipp": "cpp",
	".java": "java", ".rb": "ruby", ".sh": "shellscript", ".bash": "shellscript", ".zsh": "shellscript",
}

// fileExt is the extension of path, with its dot.
func fileExt(path string) string { return filepath.Ext(path) }

// slogPrinter sends the JSON-RPC library's complaints to tern's log at
// debug level, never to the terminal.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(format string, args ...any) {
	if p.log != nil {
		p.log.Debug(strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
}
