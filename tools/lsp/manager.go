// Package lsp runs the language servers of a tern session (gopls,
// pyright, rust-analyzer, …) for the file tools: after an edit, the
// diagnostics the server reports for the file before and after it; for
// the definition and references tools, where a symbol is defined and
// used.
//
// A server starts lazily, in the background, the first time the session
// reads or edits a file of its language, and stops with the session. It
// never stalls a turn: an edit waits for its diagnostics at most
// Options.Wait; a server that dies, or misses that wait twice in a row
// without a sign of life, is restarted once, and after that left off for
// the session. The wire
// protocol is github.com/sourcegraph/jsonrpc2's, the LSP types those of
// github.com/charmbracelet/x/powernap/pkg/lsp/protocol (generated from
// the specification's meta-model by gopls' generator): the pair Crush's
// language-server client is built on.
//
// lsp imports index/grammar (which files a language has); it must not
// import tools, agent or cmd.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

const (
	// maxStarts is how often a server starts in one session: once, and
	// once more after it died or hung.
	maxStarts = 2
	// startTimeout bounds a start: the process and the handshake. The
	// first edit waits for it only as long as its own wait.
	startTimeout = time.Minute
	// navTimeout bounds a definition or references request, with the
	// start of its server.
	navTimeout = 20 * time.Second
	// settleQuiet is how long an edit keeps listening after the edited
	// file's diagnostics came, for those of the files that use it.
	settleQuiet = 100 * time.Millisecond
	// hungAfter is how many waits in a row a running server may miss
	// before it counts as hung.
	hungAfter = 2
	// maxOpenBytes is the largest file tern opens in a server.
	maxOpenBytes = 1 << 20
)

// Errors callers tell apart.
var (
	// ErrNoServer: no server handles the file (none configured or found
	// for its language, or language servers are off).
	ErrNoServer = errors.New("no language server for this file")
	// ErrClosed: the manager was closed.
	ErrClosed = errors.New("language servers stopped")
)

// Options configure a Manager.
type Options struct {
	// Root is the workspace: the servers' root and working directory.
	Root string
	// Servers are the servers that may run (Config.Resolve); those that
	// cannot (disabled, no program) are kept for Status.
	Servers []Server
	// Wait bounds how long an edit waits for diagnostics; DefaultWait
	// when zero.
	Wait time.Duration
	// Notify, when set, tells the user of a server's troubles: it did not
	// start, it stopped, it was restarted or left off.
	Notify func(string)
	// Log takes the servers' protocol complaints, at debug level.
	Log *slog.Logger
}

// Manager runs a session's language servers. It is safe for concurrent
// use.
type Manager struct {
	opts    Options
	servers []*server
	stopCtx context.Context
	stop    context.CancelFunc
	closed  atomic.Bool
}

// NewManager returns a manager of o's servers. It starts none.
func NewManager(o Options) *Manager {
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: o}
	m.stopCtx, m.stop = context.WithCancel(context.Background())
	for _, s := range o.Servers {
		m.servers = append(m.servers, &server{cfg: s, m: m})
	}
	return m
}

// serverFor returns the runnable server that handles the file at path.
func (m *Manager) serverFor(path string) *server {
	if m == nil || m.closed.Load() {
		return nil
	}
	for _, s := range m.servers {
		if s.cfg.Runs() && s.cfg.handles(path) {
			return s
		}
	}
	return nil
}

// Handles reports whether a server handles the file at path.
func (m *Manager) Handles(path string) bool { return m.serverFor(path) != nil }

// Running reports whether a server runs or is starting.
func (m *Manager) Running() bool {
	if m == nil {
		return false
	}
	for _, s := range m.servers {
		if s.running() {
			return true
		}
	}
	return false
}

func (m *Manager) notify(format string, args ...any) {
	if m.opts.Notify != nil && !m.closed.Load() {
		m.opts.Notify(fmt.Sprintf(format, args...))
	}
}

// Opened says the session read the file at path: the server of its
// language starts, if it has not, and opens the file (or takes its text
// again, if a command changed it), in the background, so that an edit of
// it later finds the diagnostics from before the edit ready.
func (m *Manager) Opened(path string) {
	s := m.serverFor(path)
	if s == nil {
		return
	}
	if _, _, err := s.launch(); err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.stopCtx, startTimeout)
		defer cancel()
		cl, err := s.client(ctx)
		if err != nil {
			return
		}
		s.work.Lock()
		defer s.work.Unlock()
		// A file read again after a command changed it is sent again.
		text, ok := readText(path)
		if doc, open := cl.document(protocol.URIFromPath(path)); ok && (!open || doc.text != text) {
			_, _, _ = cl.send(path, text)
		}
	}()
}

// readText reads a file to open in a server: a text file of at most
// maxOpenBytes.
func readText(path string) (string, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxOpenBytes {
		return "", false
	}
	b, err := os.ReadFile(path)
	return string(b), err == nil
}

// Report is what a server said of the files before and after a change of
// one of them.
type Report struct {
	// Server names the server, as it introduced itself: "gopls v0.23.0".
	Server string
	// Before and After are the diagnostics of every file the server
	// reported on, before and after the change.
	Before, After []Diagnostic
}

// Diagnostic is one problem a server reported.
type Diagnostic struct {
	// Path is the file's absolute path.
	Path string
	// Line is 1-based; Char is the 0-based offset in the line, in UTF-16
	// units as LSP counts them.
	Line, Char int
	Severity   Severity
	Message    string
	// Source is the part of the server that found it: "compiler",
	// "Pyright".
	Source string
}

// Severity is how bad a diagnostic is.
type Severity int

// The severities, as LSP numbers them.
const (
	Error Severity = iota + 1
	Warning
	Info
	Hint
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return "hint"
}

// Changed tells the server of path's language that the file went from
// before (existed false: it did not exist) to after, which is on disk
// now, and returns what the server reports of the files before and after
// the change. It waits at most the manager's wait, the server's start
// included; ErrNoServer means no server handles the file.
func (m *Manager) Changed(ctx context.Context, path, before, after string, existed bool) (Report, error) {
	s := m.serverFor(path)
	if s == nil {
		return Report{}, ErrNoServer
	}
	wctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	began, wasRunning := time.Now(), s.ready()
	cl, err := s.client(wctx)
	if err != nil {
		return Report{}, s.missed(ctx, cl, err, false)
	}
	s.work.Lock()
	defer s.work.Unlock()
	uri := protocol.URIFromPath(path)
	var baseErr error
	if existed {
		doc, open := cl.document(uri)
		switch {
		case !open || doc.text != before:
			v, since, err := cl.send(path, before)
			if err == nil {
				err = cl.waitPublish(wctx, path, v, since)
			}
			baseErr = err
		case !cl.hasPublished(uri):
			baseErr = cl.waitPublish(wctx, path, doc.version, 0)
		}
	}
	base := cl.snapshot()
	if !existed {
		delete(base, path)
	}
	v, since, err := cl.send(path, after)
	if err == nil && baseErr == nil {
		err = cl.waitPublish(wctx, path, v, since)
	}
	if err == nil {
		err = baseErr
	}
	if err != nil {
		// A miss counts towards hung only when the server ran before and
		// sent nothing at all meanwhile: one loading a big workspace
		// reports its progress.
		return Report{}, s.missed(ctx, cl, err, wasRunning && !cl.heardSince(began))
	}
	cl.settle(wctx, settleQuiet)
	s.answered()
	return Report{Server: cl.info, Before: flatten(base), After: flatten(cl.snapshot())}, nil
}

// flatten lists the diagnostics of every file.
func flatten(byPath map[string][]protocol.Diagnostic) []Diagnostic {
	var out []Diagnostic
	for path, list := range byPath {
		for _, d := range list {
			out = append(out, Diagnostic{Path: path, Line: int(d.Range.Start.Line) + 1, Char: int(d.Range.Start.Character),
				Severity: severity(d.Severity), Message: d.Message, Source: d.Source})
		}
	}
	return out
}

// severity reads a diagnostic's severity; a server that sends none means
// an error.
func severity(s protocol.DiagnosticSeverity) Severity {
	if s < 1 || s > 4 {
		return Error
	}
	return Severity(s)
}

// Position is a place in a file: Line is 1-based, Char the 0-based
// offset in UTF-16 units.
type Position struct{ Line, Char int }

// Location is a place in a file that a server pointed to.
type Location struct {
	// Path is absolute.
	Path string
	// Line is 1-based, Char a 0-based offset in UTF-16 units.
	Line, Char int
}

// Definition returns where the symbol at pos in the file at path is
// defined.
func (m *Manager) Definition(ctx context.Context, path string, pos Position) ([]Location, error) {
	return m.locations(ctx, "textDocument/definition", path, pos)
}

// References returns where the symbol at pos in the file at path is used,
// its declaration included.
func (m *Manager) References(ctx context.Context, path string, pos Position) ([]Location, error) {
	return m.locations(ctx, "textDocument/references", path, pos)
}

func (m *Manager) locations(ctx context.Context, method, path string, pos Position) ([]Location, error) {
	s := m.serverFor(path)
	if s == nil {
		return nil, ErrNoServer
	}
	ctx, cancel := context.WithTimeout(ctx, navTimeout)
	defer cancel()
	cl, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	s.work.Lock()
	defer s.work.Unlock()
	text, ok := readText(path)
	if !ok {
		return nil, fmt.Errorf("cannot open %s in %s", path, cl.info)
	}
	if doc, open := cl.document(protocol.URIFromPath(path)); !open || doc.text != text {
		if _, _, err := cl.send(path, text); err != nil {
			return nil, err
		}
	}
	locs, err := cl.locations(ctx, method, path, protocol.Position{Line: uint32(max(pos.Line-1, 0)), Character: uint32(max(pos.Char, 0))})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cl.info, err)
	}
	out := make([]Location, 0, len(locs))
	for _, l := range locs {
		p, err := l.URI.Path()
		if err != nil {
			continue
		}
		out = append(out, Location{Path: p, Line: int(l.Range.Start.Line) + 1, Char: int(l.Range.Start.Character)})
	}
	return out, nil
}

// Close stops every server, each given a second to shut down before it
// is killed.
func (m *Manager) Close() {
	if m == nil || m.closed.Swap(true) {
		return
	}
	m.stop()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.close)
	}
	wg.Wait()
}
