package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestTwoUpdatersTakeTurns opens one index twice, as two tern processes
// would, and starts the second update while the first is running. The
// second must wait (saying who holds the lock), and the chunks must be
// stored once.
func TestTwoUpdatersTakeTurns(t *testing.T) {
	root := copyRepo(t)
	for i := range 40 {
		writeFiles(t, root, map[string]string{fmt.Sprintf("gen/f%02d.go", i): fmt.Sprintf("package gen\n\nfunc F%d() {}\n", i)})
	}
	db := filepath.Join(t.TempDir(), "index.db")
	first, err := OpenAt(t.Context(), root, db)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := OpenAt(t.Context(), root, db)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()

	inFirst, release := make(chan struct{}), make(chan struct{})
	letGo := sync.OnceFunc(func() { close(release) })
	var once sync.Once
	var wg sync.WaitGroup
	var firstStats Stats
	var firstErr error
	wg.Go(func() {
		firstStats, firstErr = first.Update(t.Context(), Options{Progress: func(p Progress) {
			if p.Phase == PhaseChunk {
				once.Do(func() { close(inFirst); <-release })
			}
		}})
	})
	<-inFirst

	// Without OnWait the second gives up at once, naming the holder.
	if _, err := second.Update(t.Context(), Options{}); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("second update without OnWait: %v", err)
	}
	var holder string
	secondDone := make(chan Stats)
	go func() {
		st, err := second.Update(t.Context(), Options{OnWait: func(h string) { holder = h; letGo() }})
		if err != nil {
			t.Error(err)
		}
		secondDone <- st
	}()
	st := <-secondDone
	letGo()
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	if !strings.Contains(holder, "pid ") {
		t.Errorf("holder = %q; want the first updater's pid", holder)
	}
	if firstStats.Indexed == 0 || st.Indexed != 0 {
		t.Errorf("first indexed %d files, second %d; want all, then none", firstStats.Indexed, st.Indexed)
	}
	var chunks, distinct int
	if err := first.db.QueryRow(`SELECT count(*), count(DISTINCT file_id || ':' || start_line) FROM chunks`).Scan(&chunks, &distinct); err != nil {
		t.Fatal(err)
	}
	if chunks == 0 || chunks != distinct {
		t.Errorf("%d chunks stored, %d distinct: stored twice", chunks, distinct)
	}
}
