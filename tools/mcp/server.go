package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ternhq/tern/tools/proc"
)

// maxStarts is how often a server is started in one session: once, and
// once more after it stopped or failed to start.
const maxStarts = 2

// server is one configured MCP server and its connection, if running.
type server struct {
	cfg ServerConfig
	m   *Manager

	mu      sync.Mutex // guards the fields below; held during a start
	conn    *conn      // nil when not running
	starts  int        // starts attempted
	listing []*sdk.Tool
	named   bool  // listing is in the Manager's catalog
	err     error // why the last start failed, or why the server stopped
}

// conn is one running session with a server.
type conn struct {
	session *sdk.ClientSession
	cmd     *exec.Cmd // stdio servers only
	stderr  *proc.Tail
	once    sync.Once
}

// wantsStart reports whether load should start the server: its tools are
// not listed yet and it has starts left.
func (s *server) wantsStart() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listing == nil && s.conn == nil && s.starts < maxStarts
}

// takeListing returns the server's tools once, the first time they are
// there (isNew), so the Manager catalogues them once; err is why its tools
// are unavailable, if they are: it never started, or it stopped and has no
// restart left.
func (s *server) takeListing() (list []*sdk.Tool, isNew bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.usableLocked() || s.listing == nil {
		err = s.err
	}
	if s.listing != nil && !s.named {
		s.named = true
		return s.listing, true, err
	}
	return nil, false, err
}

// startLocked starts the server and, the first time, lists its tools. The
// caller holds s.mu. The error says what went wrong and, where it can,
// what to change (see fixOf).
func (s *server) startLocked(parent context.Context) error {
	if s.m.closed.Load() {
		return ErrClosed
	}
	if s.starts >= maxStarts {
		return s.err
	}
	s.starts++
	err := s.tryStart(parent)
	if err != nil && parent.Err() != nil && !s.m.closed.Load() {
		s.starts-- // the turn was cancelled: that was not a real try
	}
	return err
}

func (s *server) tryStart(parent context.Context) error {
	if gate := s.m.opts.BeforeStart; gate != nil {
		if err := gate(parent, s.cfg); err != nil {
			if parent.Err() == nil {
				s.starts = maxStarts // asked once; the answer holds for the session
			}
			s.err = &startError{msg: fmt.Sprintf("not started: %v", err), err: err}
			return s.err
		}
	}
	ctx, cancel := context.WithTimeout(parent, s.cfg.timeout())
	defer cancel()
	defer context.AfterFunc(s.m.stopCtx, cancel)()

	c, err := s.connect(ctx)
	if err != nil {
		s.err = err
		return err
	}
	if s.listing == nil {
		var list []*sdk.Tool
		for t, err := range c.session.Tools(ctx, nil) {
			if err != nil {
				c.stop()
				s.err = s.explain(fmt.Errorf("list tools: %w", err), c)
				return s.err
			}
			list = append(list, t)
		}
		s.listing = list
	}
	if s.m.closed.Load() {
		c.stop()
		return ErrClosed
	}
	s.conn, s.err = c, nil
	go s.watch(c)
	return nil
}

// connect starts the server process or dials its URL, and does the MCP
// handshake.
func (s *server) connect(ctx context.Context) (*conn, error) {
	c := &conn{stderr: &proc.Tail{}}
	var t sdk.Transport
	switch {
	case s.m.opts.Dial != nil:
		var err error
		if t, err = s.m.opts.Dial(ctx, s.cfg); err != nil {
			return nil, s.explain(err, c)
		}
	case s.cfg.URL != "":
		t = &sdk.StreamableClientTransport{
			Endpoint:             s.cfg.URL,
			HTTPClient:           s.httpClient(),
			DisableStandaloneSSE: true, // tern never needs server-sent notifications
		}
	default:
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Dir = s.m.opts.Workspace.Root()
		cmd.Env = s.environ()
		cmd.Stderr = c.stderr
		cmd.WaitDelay = s.m.opts.StopTimeout // a grandchild holding stderr open cannot stall Wait
		proc.Isolate(cmd)
		c.cmd = cmd
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: s.m.opts.StopTimeout}
	}
	cs, err := s.m.client.Connect(ctx, t, nil)
	if err != nil {
		// The SDK closed the connection, which for a stdio server waited
		// for the process; sweep what it may have started.
		if c.cmd != nil && c.cmd.Process != nil {
			_ = proc.KillGroup(c.cmd.Process.Pid)
		}
		return nil, s.explain(err, c)
	}
	c.session = cs
	return c, nil
}

// environ is tern's environment with the server's env added, $VAR
// expanded from tern's environment. Keys are added in sorted order, so the
// result does not depend on map order.
func (s *server) environ() []string {
	env := slices.Clone(s.m.opts.Environ)
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		env = append(env, k+"="+s.expand(s.cfg.Env[k]))
	}
	return env
}

func (s *server) expand(v string) string {
	return os.Expand(v, func(name string) string {
		if name == "$" {
			return "$" // "$$" is a literal dollar sign
		}
		for _, kv := range slices.Backward(s.m.opts.Environ) {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				return val
			}
		}
		return ""
	})
}

func (s *server) httpClient() *http.Client {
	if len(s.cfg.Headers) == 0 {
		return s.m.opts.HTTPClient
	}
	h := make(http.Header)
	for k, v := range s.cfg.Headers {
		h.Set(k, s.expand(v))
	}
	c := *s.m.opts.HTTPClient
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = headerTransport{base: base, h: h}
	return &c
}

type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// watch notices a session that ends without tern closing it: the server
// crashed or hung up. The process is reaped at once, and the next call
// restarts the server.
func (s *server) watch(c *conn) {
	_ = c.session.Wait()
	s.lost(c)
}

// lost records that c ended and stops it. It returns once c is stopped,
// even when another goroutine is stopping it, so the caller may read how
// the process ended.
func (s *server) lost(c *conn) {
	s.mu.Lock()
	current := s.conn == c
	if current {
		s.conn = nil
	}
	s.mu.Unlock()
	c.stop()
	if current {
		s.mu.Lock()
		if s.conn == nil { // not restarted meanwhile
			s.err = &startError{msg: "stopped" + c.exit()}
		}
		s.mu.Unlock()
	}
}

// usable reports whether calls of the server's tools can still work: it
// runs, or it may be (re)started.
func (s *server) usable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usableLocked()
}

func (s *server) usableLocked() bool {
	return s.conn != nil || s.starts < maxStarts && !s.m.closed.Load()
}

// acquire returns the running connection, restarting the server if it
// stopped and has a start left. restarted reports such a restart.
func (s *server) acquire(ctx context.Context) (c *conn, restarted bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		return s.conn, false, nil
	}
	if s.m.closed.Load() {
		return nil, false, ErrClosed
	}
	if s.starts >= maxStarts {
		return nil, false, fmt.Errorf("MCP server %q is down (%v) and was already restarted once; its tools are unavailable for the rest of this session, so carry on without them", s.cfg.Name, s.err)
	}
	if err := s.startLocked(ctx); err != nil {
		return nil, false, fmt.Errorf("MCP server %q stopped earlier and could not be restarted: %v; its tools are unavailable for the rest of this session, so carry on without them", s.cfg.Name, err)
	}
	return s.conn, true, nil
}

// shutdown stops the server for good.
func (s *server) shutdown() error {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.err = ErrClosed
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.stop()
}

// stop closes the session once: for a stdio server the SDK closes its
// input, waits, then sends SIGTERM and SIGKILL; then whatever is left of
// its process group is killed. A server's non-zero exit is not an error
// of stopping it.
func (c *conn) stop() (err error) {
	c.once.Do(func() {
		if c.session != nil {
			err = c.session.Close()
		}
		if c.cmd != nil && c.cmd.Process != nil {
			if kerr := proc.KillGroup(c.cmd.Process.Pid); kerr != nil && err == nil {
				err = kerr
			}
		}
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) || errors.Is(err, sdk.ErrConnectionClosed) {
			err = nil
		}
	})
	return err
}

// exit describes how the server's process ended, such as " (exit status
// 3; it printed: panic: boom)"; "" when there is nothing to say.
func (c *conn) exit() string {
	var parts []string
	if c.cmd != nil && c.cmd.ProcessState != nil {
		parts = append(parts, c.cmd.ProcessState.String())
	}
	if last := c.stderr.Last(); last != "" {
		parts = append(parts, "it printed: "+last)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// disconnected reports whether err means the connection to the server is
// gone, rather than that one call failed.
func disconnected(err error) bool {
	var opErr *net.OpError
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, fs.ErrClosed) || errors.As(err, &opErr)
}
