package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeManager runs the fake server in mode for ".fk" files in a temporary
// workspace, with wait as the edits' wait. notices collects what the user
// would be told.
func fakeManager(t *testing.T, mode string, wait time.Duration) (*Manager, string, *notices) {
	t.Helper()
	root := t.TempDir()
	n := &notices{}
	m := NewManager(Options{Root: root, Wait: wait, Notify: n.add,
		Servers: []Server{{Name: "fake", Command: fakeCommand(t, mode), Extensions: []string{".fk"}, Enabled: true}}})
	t.Cleanup(m.Close)
	return m, root, n
}

type notices struct {
	mu   sync.Mutex
	list []string
	news chan struct{}
}

func (n *notices) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, s)
	if n.news != nil {
		close(n.news)
		n.news = nil
	}
}

// waitFor waits until a notice contains want and returns it.
func (n *notices) waitFor(t *testing.T, want string) string {
	t.Helper()
	for {
		n.mu.Lock()
		for _, s := range n.list {
			if strings.Contains(s, want) {
				n.mu.Unlock()
				return s
			}
		}
		if n.news == nil {
			n.news = make(chan struct{})
		}
		news := n.news
		n.mu.Unlock()
		select {
		case <-news:
		case <-time.After(time.Minute): // far beyond any wait here: a bug, not a slow machine
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("no notice says %q; the notices: %q", want, n.list)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func messages(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, filepath.Base(d.Path)+":"+strconv.Itoa(d.Line)+":"+d.Severity.String()+":"+d.Message)
	}
	slices.Sort(out)
	return out
}

func TestChangedReportsTheFileBeforeAndAfter(t *testing.T) {
	m, root, _ := fakeManager(t, "ok", time.Minute)
	path := filepath.Join(root, "a.fk")
	before := "one\nWARN two\n"
	after := "one\nBAD\nWARN two\n"
	write(t, path, after)
	rep, err := m.Changed(t.Context(), path, before, after, true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server != "fake 1.0" {
		t.Errorf("server = %q, want the name it gave, fake 1.0", rep.Server)
	}
	if got, want := messages(rep.Before), []string{"a.fk:2:warning:warn thing"}; !slices.Equal(got, want) {
		t.Errorf("before = %v, want %v", got, want)
	}
	if got, want := messages(rep.After), []string{"a.fk:2:error:bad thing", "a.fk:3:warning:warn thing"}; !slices.Equal(got, want) {
		t.Errorf("after = %v, want %v", got, want)
	}
	// The next edit starts from what the server has: no reopening.
	again := "one\nWARN two\n"
	write(t, path, again)
	rep, err = m.Changed(t.Context(), path, after, again, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := messages(rep.After), []string{"a.fk:2:warning:warn thing"}; !slices.Equal(got, want) {
		t.Errorf("after the fix = %v, want %v", got, want)
	}
}

func TestChangedOfANewFileHasNoBefore(t *testing.T) {
	m, root, _ := fakeManager(t, "ok", time.Minute)
	path := filepath.Join(root, "new.fk")
	write(t, path, "BAD\n")
	rep, err := m.Changed(t.Context(), path, "", "BAD\n", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Before) != 0 || len(rep.After) != 1 {
		t.Errorf("before %v, after %v; want nothing, then one error", rep.Before, rep.After)
	}
}

func TestOpenedStartsTheServerInTheBackground(t *testing.T) {
	m, root, _ := fakeManager(t, "ok", time.Minute)
	path := filepath.Join(root, "a.fk")
	write(t, path, "BAD\n")
	if m.Running() {
		t.Fatal("a server runs before any file was read")
	}
	m.Opened(path)
	if !m.Running() {
		t.Fatal("reading a file of the server's language did not start it")
	}
	rep, err := m.Changed(t.Context(), path, "BAD\n", "BAD\nok\n", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := messages(rep.Before); len(got) != 1 {
		t.Errorf("before = %v; want the error the file had when it was read", got)
	}
	m.Opened(filepath.Join(root, "notes.txt"))
	if m.Handles(filepath.Join(root, "notes.txt")) {
		t.Error("the fake server handles .txt files")
	}
}

func TestAHungServerDoesNotStallEdits(t *testing.T) {
	m, root, n := fakeManager(t, "hang", 200*time.Millisecond)
	path := filepath.Join(root, "a.fk")
	write(t, path, "x\n")
	// The server runs: it answers requests, but never publishes.
	if _, err := m.References(t.Context(), path, Position{Line: 1}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		_, err := m.Changed(t.Context(), path, "x\n", "x\n", true)
		if err == nil || !strings.Contains(err.Error(), "did not answer within 200ms") {
			t.Fatalf("edit %d: err = %v; want the wait missed", i+1, err)
		}
	}
	// Two misses in a row while it ran make it hung: it is stopped, to
	// start again when next needed.
	n.waitFor(t, "did not answer within 200ms 2 times in a row; stopped; tern starts it again")
	if m.Running() {
		t.Error("the hung server still runs")
	}
}

func TestAServerStuckInItsHandshakeDoesNotStallEdits(t *testing.T) {
	m, root, _ := fakeManager(t, "hang-init", 100*time.Millisecond)
	path := filepath.Join(root, "a.fk")
	_, err := m.Changed(t.Context(), path, "", "x\n", false)
	if err == nil || !strings.Contains(err.Error(), "lsp.test did not answer within 100ms") {
		t.Fatalf("err = %v; want the wait missed", err)
	}
}

func TestADyingServerIsRestartedOnce(t *testing.T) {
	m, root, n := fakeManager(t, "die-on-change", time.Minute)
	path := filepath.Join(root, "a.fk")
	write(t, path, "x\n")
	_, err := m.Changed(t.Context(), path, "", "x\n", false) // opens: no change yet
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Changed(t.Context(), path, "x\n", "y\n", true)
	if err == nil || !strings.Contains(err.Error(), "panic: the fake server broke") {
		t.Fatalf("err = %v; want the server's last words", err)
	}
	n.waitFor(t, "stopped: exit status 3: panic: the fake server broke; tern starts it again")
	// It starts again, and dies again at its first change.
	if _, err := m.Changed(t.Context(), path, "y\n", "z\n", true); err == nil {
		t.Fatal("the restarted server died, and the edit reports nothing wrong")
	}
	n.waitFor(t, "it is left off for this session")
	_, err = m.Changed(t.Context(), path, "z\n", "w\n", true)
	if err == nil || !strings.Contains(err.Error(), "is not running") {
		t.Fatalf("err = %v; want the server left off", err)
	}
}

func TestDefinitionAndReferences(t *testing.T) {
	m, root, _ := fakeManager(t, "ok", time.Minute)
	a, b := filepath.Join(root, "a.fk"), filepath.Join(root, "b.fk")
	write(t, a, "func greet\n")
	write(t, b, "call greet\ncall greet again\n")
	m.Opened(a)
	if _, err := m.References(t.Context(), a, Position{Line: 1, Char: 6}); err != nil { // opens a
		t.Fatal(err)
	}
	defs, err := m.Definition(t.Context(), b, Position{Line: 2, Char: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || defs[0] != (Location{Path: a, Line: 1, Char: 5}) {
		t.Errorf("definition = %+v; want a.fk:1:5", defs)
	}
	refs, err := m.References(t.Context(), b, Position{Line: 1, Char: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 3 {
		t.Errorf("references = %+v; want the 3 places greet is written", refs)
	}
	if _, err := m.Definition(t.Context(), filepath.Join(root, "x.txt"), Position{Line: 1}); !errors.Is(err, ErrNoServer) {
		t.Errorf("definition in a .txt file: err = %v, want ErrNoServer", err)
	}
}

func TestCloseStopsTheServers(t *testing.T) {
	m, root, _ := fakeManager(t, "ok", time.Minute)
	path := filepath.Join(root, "a.fk")
	write(t, path, "x\n")
	if _, err := m.Changed(t.Context(), path, "", "x\n", false); err != nil {
		t.Fatal(err)
	}
	cl := m.servers[0].cl
	m.Close()
	select {
	case <-cl.exited:
	case <-t.Context().Done():
		t.Fatal("the server still runs after Close")
	}
	if _, err := m.Changed(context.Background(), path, "x\n", "y\n", true); !errors.Is(err, ErrNoServer) {
		t.Errorf("after Close: err = %v, want ErrNoServer", err)
	}
}
