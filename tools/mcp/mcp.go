// Package mcp connects tern to the Model Context Protocol servers the user
// configured, and offers their tools as tools.Tool values of tier 3.
//
// A Manager starts nothing until its tools are first wanted (Search, Tools,
// Get, Catalog, Status); then it starts every enabled server at once, over
// stdio (a child process in a process group of its own) or streamable
// HTTP, and lists their tools. Each remote tool becomes a tool named
// "server_tool" in snake_case, with a short description and a compact
// schema, whose effect is External. A call that fails in any way (server
// crashed, timed out, refused the call) is a result for the model, never a
// Go error; a server that stopped is restarted once, on the next call of
// one of its tools. Close stops every server and what it started.
//
// Search ranks the tools by BM25 over their names and descriptions, so the
// model gets the few tools that match its task instead of every schema.
//
// mcp imports models and tools; it must not import agent, disclosure,
// context/budget, session, tui or cmd.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ternhq/tern/tools"
)

// ErrClosed is returned by the Manager's methods after Close.
var ErrClosed = errors.New("mcp servers are shut down")

// Options configure a Manager.
type Options struct {
	// Servers are the configured servers, in the order their tools are
	// catalogued. Disabled servers are listed by Status and never started.
	Servers []ServerConfig
	// Workspace is where stdio servers run, and where outputs too long
	// for the model are spilled (tools.Workspace.Fit). Required.
	Workspace *tools.Workspace
	// Reserved are tool names already taken, such as the built-in tools';
	// an MCP tool whose name would clash gets a numbered suffix.
	Reserved []string
	// Environ is the environment stdio servers inherit and that $VAR in
	// env and header values is read from; os.Environ() when nil.
	Environ []string
	// HTTPClient reaches URL servers; http.DefaultClient when nil.
	HTTPClient *http.Client
	// BeforeStart, when set, is asked before a server is started; an
	// error keeps the server (and its tools) off for the session and is
	// what calls of its tools report. cmd/tern can ask the user here
	// before running a program named by a project's .tern.toml.
	BeforeStart func(ctx context.Context, s ServerConfig) error
	// Dial, when set, replaces how a server is reached: tests return an
	// in-memory transport. The default runs Command or dials URL.
	Dial func(ctx context.Context, s ServerConfig) (sdk.Transport, error)
	// StopTimeout is how long Close waits for a stdio server to exit after
	// its input is closed, and then after SIGTERM, before killing it;
	// 2 seconds when zero.
	StopTimeout time.Duration
	// Version is tern's version, sent to servers in the handshake.
	Version string
	// Logger receives debug details; nothing is logged when nil.
	Logger *slog.Logger
}

// Manager starts configured MCP servers on first use and serves their
// tools. It is safe for concurrent use.
type Manager struct {
	opts    Options
	log     *slog.Logger
	client  *sdk.Client
	servers []*server

	stopCtx context.Context // cancelled by Close: aborts starts in flight
	stop    context.CancelFunc

	loadMu sync.Mutex // serializes starting servers and cataloguing their tools
	closed atomic.Bool

	mu      sync.Mutex    // guards the fields below; never held while taking a server's lock
	catalog []*RemoteTool // in server order, then each server's listing order
	index   *bm25         // over catalog; nil until a search needs it
}

// NewManager checks the server configs and returns a Manager that has
// started nothing yet. Two servers of the same name, or a config that does
// not validate, are errors that say what to fix.
func NewManager(opts Options) (*Manager, error) {
	if opts.Workspace == nil {
		return nil, errors.New("mcp manager: no workspace")
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 2 * time.Second
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{
		opts:   opts,
		log:    log,
		client: sdk.NewClient(&sdk.Implementation{Name: "tern", Version: opts.Version}, nil),
	}
	m.stopCtx, m.stop = context.WithCancel(context.Background())
	seen := map[string]string{}
	for _, cfg := range opts.Servers {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		key := snake(cfg.Name)
		if other, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s: mcp servers %q and %q would give their tools the same prefix %q; rename one", cfg.where(), other, cfg.Name, key)
		}
		seen[key] = cfg.Name
		m.servers = append(m.servers, &server{cfg: cfg, m: m})
	}
	return m, nil
}

// Servers returns the configured servers, enabled or not, in order.
func (m *Manager) Servers() []ServerConfig {
	out := make([]ServerConfig, len(m.servers))
	for i, s := range m.servers {
		out[i] = s.cfg
	}
	return out
}

// Tools starts the enabled servers that have not started yet and returns
// every tool of every server that answered, in catalog order. When the
// tools of some servers are unavailable (the server did not start, or
// stopped after its one restart), err says which and why; the tools of the
// others are still returned.
func (m *Manager) Tools(ctx context.Context) ([]tools.Tool, error) {
	err := m.load(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]tools.Tool, len(m.catalog))
	for i, t := range m.catalog {
		out[i] = t
	}
	return out, err
}

// Get returns the tool the model knows by name, starting the servers first
// if they have not started yet.
func (m *Manager) Get(ctx context.Context, name string) (tools.Tool, bool) {
	if t, ok := m.lookup(name); ok {
		return t, true
	}
	_ = m.load(ctx)
	return m.lookup(name)
}

func (m *Manager) lookup(name string) (tools.Tool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.IndexFunc(m.catalog, func(t *RemoteTool) bool { return t.spec.Name == name })
	if i < 0 {
		return nil, false
	}
	return m.catalog[i], true
}

// load starts, in parallel, every enabled server that has not listed its
// tools yet and may still be started, then catalogues the new tools in
// server order, so names and order do not depend on which server answered
// first.
func (m *Manager) load(ctx context.Context) error {
	m.loadMu.Lock()
	defer m.loadMu.Unlock()
	if m.closed.Load() {
		return ErrClosed
	}
	var wg sync.WaitGroup
	for _, s := range m.servers {
		if s.cfg.On() && s.wantsStart() {
			wg.Go(func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				if err := s.startLocked(ctx); err != nil {
					m.log.Debug("mcp server did not start", "server", s.cfg.Name, "err", err)
				}
			})
		}
	}
	wg.Wait()

	var errs []error
	type listed struct {
		s    *server
		list []*sdk.Tool
	}
	var fresh []listed
	for _, s := range m.servers {
		if !s.cfg.On() {
			continue
		}
		list, isNew, err := s.takeListing()
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.cfg.Name, err))
		}
		if isNew {
			fresh = append(fresh, listed{s, list})
		}
	}
	if len(fresh) > 0 {
		m.mu.Lock()
		taken := map[string]bool{}
		for _, n := range m.opts.Reserved {
			taken[n] = true
		}
		for _, t := range m.catalog {
			taken[t.spec.Name] = true
		}
		for _, l := range fresh {
			for _, rt := range l.list {
				t := newRemoteTool(l.s, rt, func(n string) bool { return taken[n] })
				taken[t.spec.Name] = true
				m.catalog = append(m.catalog, t)
			}
		}
		m.index = nil
		m.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Close stops every server: it closes each session (a stdio server's input
// is closed, then it gets SIGTERM and SIGKILL if it lingers) and kills what
// is left of each stdio server's process group. Starts in flight are
// aborted. Calls after Close report that the servers are shut down.
func (m *Manager) Close() error {
	if m.closed.Swap(true) {
		return nil
	}
	m.stop()
	var wg sync.WaitGroup
	errs := make([]error, len(m.servers))
	for i, s := range m.servers {
		wg.Go(func() { errs[i] = s.shutdown() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
