package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// server is one configured language server and its running client, if
// any.
type server struct {
	cfg Server
	m   *Manager
	// work makes the exchanges about documents (open, change, wait for
	// diagnostics, ask for locations) one at a time.
	work sync.Mutex

	mu       sync.Mutex // guards the fields below
	cl       *client
	starting chan struct{} // closed when the start under way ends
	starts   int
	err      error // why it is not running
	misses   int   // waits missed in a row
	killed   *client
}

// running reports whether the server runs or starts.
func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starting != nil || s.cl != nil && !s.cl.dead()
}

// ready reports whether the server runs and has answered the handshake.
func (s *server) ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cl != nil && !s.cl.dead()
}

// client returns the running client, starting the server if it is not
// running and has starts left, and waiting for the start within ctx.
func (s *server) client(ctx context.Context) (*client, error) {
	cl, starting, err := s.launch()
	if cl != nil || err != nil {
		return cl, err
	}
	select {
	case <-starting:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s is still starting: %w", s.name(), ctx.Err())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cl == nil {
		return nil, s.err
	}
	return s.cl, nil
}

// launch returns the running client, or else the start under way,
// beginning one if the server has starts left, or else why it is not
// running.
func (s *server) launch() (*client, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cl != nil && s.cl.dead() {
		s.err, s.cl = s.cl.err, nil
	}
	switch {
	case s.cl != nil:
		return s.cl, nil, nil
	case s.starting != nil:
		return nil, s.starting, nil
	case s.m.closed.Load():
		return nil, nil, ErrClosed
	case s.starts >= maxStarts:
		return nil, nil, fmt.Errorf("%s is not running: %w", s.name(), s.err)
	}
	s.starts++
	s.starting = make(chan struct{})
	go s.start(s.starting)
	return nil, s.starting, nil
}

// start starts the server and, once it runs, watches for its end.
func (s *server) start(done chan struct{}) {
	ctx, cancel := context.WithTimeout(s.m.stopCtx, startTimeout)
	defer cancel()
	cl, err := startClient(ctx, s.cfg, s.m.opts.Root, s.m.opts.Log)
	if err == nil && s.m.closed.Load() {
		cl.kill()
		cl, err = nil, ErrClosed
	}
	s.mu.Lock()
	s.cl, s.err, s.misses = cl, err, 0
	s.starting = nil
	again := s.starts < maxStarts
	s.mu.Unlock()
	close(done)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("it did not finish starting within %s", startTimeout)
		}
		s.m.notify("language server %s did not start: %v%s", s.name(), err, s.retry(again))
		return
	}
	go func() {
		<-cl.exited
		s.mu.Lock()
		deliberate := s.killed == cl
		again := s.starts < maxStarts
		s.mu.Unlock()
		if !deliberate {
			s.m.notify("language server %s stopped: %v%s", cl.info, cl.err, s.retry(again))
		}
	}()
}

// name is the server's program, for messages.
func (s *server) name() string { return filepath.Base(s.cfg.Command[0]) }

// retry ends a notice of a server's trouble with what happens next.
func (s *server) retry(again bool) string {
	if again {
		return "; tern starts it again when it is next needed"
	}
	return fmt.Sprintf("; it is left off for this session (edits of %s files are checked for syntax only)", s.cfg.Name)
}

// missed handles err, what ended a wait for the server. ctx is the
// caller's: when it was cancelled, the user stopped the turn. A wait the
// server missed in silence while it was already running (counts) counts
// towards hungAfter, after which the server is killed, to start again on
// its next use if it has a start left.
func (s *server) missed(ctx context.Context, cl *client, err error, counts bool) error {
	if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	err = fmt.Errorf("%s did not answer within %s", s.name(), s.m.opts.Wait)
	if !counts || cl == nil {
		return err
	}
	s.mu.Lock()
	s.misses++
	hung := s.misses >= hungAfter && s.cl == cl
	if hung {
		s.killed, s.cl, s.err = cl, nil, fmt.Errorf("it did not answer within %s %d times in a row", s.m.opts.Wait, hungAfter)
	}
	again := s.starts < maxStarts
	s.mu.Unlock()
	if hung {
		cl.kill()
		s.m.notify("language server %s did not answer within %s %d times in a row; stopped%s", cl.info, s.m.opts.Wait, hungAfter, s.retry(again))
	}
	return err
}

// answered notes that the server answered in time.
func (s *server) answered() {
	s.mu.Lock()
	s.misses = 0
	s.mu.Unlock()
}

// close stops the server, if it runs; a start under way sees the manager
// closed and kills what it started.
func (s *server) close() {
	s.mu.Lock()
	cl := s.cl
	s.killed, s.cl = cl, nil
	s.mu.Unlock()
	if cl == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	cl.stop(ctx)
}
