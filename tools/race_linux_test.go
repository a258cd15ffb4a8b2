package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// swapper swaps the directory root/a for a symbolic link to outside/a and
// back, in a loop, until stopped: the check-then-use race a hostile
// process would run against the file tools.
type swapper struct {
	stop  atomic.Bool
	done  sync.WaitGroup
	swaps atomic.Int64
}

func startSwapping(t *testing.T, root, outside string) *swapper {
	t.Helper()
	s := &swapper{}
	a, link := filepath.Join(root, "a"), filepath.Join(root, "a.link")
	if err := os.Symlink(filepath.Join(outside, "a"), link); err != nil {
		t.Fatal(err)
	}
	// Each exchange is atomic: a is always there, the real directory or
	// the link, as in a real attack.
	exchange := func() error {
		return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
	}
	if err := exchange(); err != nil {
		t.Skipf("renameat2 RENAME_EXCHANGE: %v", err)
	}
	exchange()
	s.done.Go(func() {
		for !s.stop.Load() {
			if exchange() == nil {
				s.swaps.Add(1)
			}
			if exchange() == nil {
				s.swaps.Add(1)
			}
		}
	})
	t.Cleanup(s.halt)
	return s
}

func (s *swapper) halt() {
	s.stop.Store(true)
	s.done.Wait()
}

// raceFixture is a workspace holding a/f.txt and a/sub/g.txt, and an
// outside directory holding the same names with SECRET content.
func raceFixture(t *testing.T) (ws *Workspace, outside string) {
	t.Helper()
	ws = newFixture(t)
	outside = t.TempDir()
	writeFiles(t, ws.Root(), map[string]string{"a/f.txt": "inside\n", "a/sub/g.txt": "inside\n"})
	writeFiles(t, outside, map[string]string{"a/f.txt": "SECRET\n", "a/sub/g.txt": "SECRET\n"})
	return ws, outside
}

// TestReadToolsRaceSymlinkSwap runs every reading tool while a/ is swapped
// for a symbolic link to a directory outside the workspace, many times
// over. Nothing outside may ever show.
func TestReadToolsRaceSymlinkSwap(t *testing.T) {
	ws, outside := raceFixture(t)
	calls := []struct {
		tool Tool
		args string
	}{
		{NewReadFile(ws), `{"path":"a/f.txt"}`},
		{NewReadFile(ws), `{"path":"a/sub/g.txt"}`},
		{NewGrep(ws), `{"pattern":"S.CRET|ins.de"}`},
		{NewGrep(ws), `{"pattern":"S.CRET|ins.de","path":"a/f.txt"}`},
		{NewGlob(ws), `{"pattern":"**/*.txt"}`},
		{NewListDir(ws), `{"path":"a","depth":3}`},
	}
	s := startSwapping(t, ws.Root(), outside)
	for i := 0; i < 600 || s.swaps.Load() < 200; i++ {
		if i > 5000 {
			t.Fatalf("the swapper made only %d swaps", s.swaps.Load())
		}
		c := calls[i%len(calls)]
		r := call(t, c.tool, c.args, 0)
		if strings.Contains(r.Output, "SECRET") {
			s.halt()
			t.Fatalf("%s %s escaped the workspace after %d swaps:\n%s", c.tool.Spec().Name, c.args, s.swaps.Load(), r.Output)
		}
	}
}

// TestWriteToolsRaceSymlinkSwap writes and edits under a/ while a/ is
// swapped for a link to outside. The outside directory must never change.
func TestWriteToolsRaceSymlinkSwap(t *testing.T) {
	ws, outside := raceFixture(t)
	write, edit, read := NewWriteFile(ws, nil), NewEditFile(ws, nil), NewReadFile(ws)
	s := startSwapping(t, ws.Root(), outside)
	for i := 0; i < 200 || s.swaps.Load() < 150; i++ {
		if i > 3000 {
			t.Fatalf("the swapper made only %d swaps", s.swaps.Load())
		}
		call(t, write, fmt.Sprintf(`{"path":"a/new%d.txt","content":"x"}`, i), 0)
		call(t, write, fmt.Sprintf(`{"path":"a/sub/new%d.txt","content":"x"}`, i), 0)
		call(t, read, `{"path":"a/f.txt"}`, 0)
		call(t, edit, fmt.Sprintf(`{"path":"a/f.txt","old_string":"inside","new_string":"inside"}`), 0)
		call(t, write, `{"path":"a/f.txt","content":"changed\n","overwrite":true}`, 0)
		call(t, write, `{"path":"a/f.txt","content":"inside\n","overwrite":true}`, 0)
	}
	s.halt()
	got := map[string]string{}
	filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(outside, p)
			got[rel] = string(data)
		}
		return nil
	})
	want := map[string]string{"a/f.txt": "SECRET\n", "a/sub/g.txt": "SECRET\n"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outside the workspace changed after %d swaps: %v", s.swaps.Load(), got)
	}
}
