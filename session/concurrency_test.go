package session

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ternhq/tern/models"
)

// checkHistory asserts that the session holds every message each writer
// wrote, each writer's in its own order, with seq numbers 1..n and no gaps.
func checkHistory(t *testing.T, s *Store, id string, writers []string, each int) {
	t.Helper()
	all, err := s.AllMessages(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(writers)*each {
		t.Fatalf("%d messages stored, want %d", len(all), len(writers)*each)
	}
	next := map[string]int{}
	for i, m := range all {
		if m.Seq != i+1 {
			t.Fatalf("message %d has seq %d: seq numbers must be unique and dense", i, m.Seq)
		}
		w, n, _ := strings.Cut(m.Content, " ")
		if strconv.Itoa(next[w]) != n {
			t.Fatalf("writer %s: message %s stored where %d was due", w, n, next[w])
		}
		next[w]++
	}
	sess, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Turns != len(writers)*each {
		t.Errorf("session counts %d turns, want %d", sess.Turns, len(writers)*each)
	}
}

func TestTwoStoresWriteConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tern.db")
	ctx := t.Context()
	var stores []*Store
	for range 2 {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	shared, err := stores[0].Create(ctx, "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	const each = 25
	var writers []string
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		s := stores[i%2]
		name := fmt.Sprintf("w%d", i)
		writers = append(writers, name)
		wg.Go(func() {
			own, err := s.Create(ctx, "m", "/d") // a second write path, racing the shared one
			if err != nil {
				errs <- err
				return
			}
			for n := range each {
				m := models.Message{Role: models.RoleUser, Content: fmt.Sprintf("%s %d", name, n)}
				if err := s.AppendMessage(ctx, shared.ID, m); err != nil {
					errs <- err
					return
				}
				if err := s.RecordTurn(ctx, own.ID, TurnMetrics{PromptTokens: 1}); err != nil {
					errs <- err
					return
				}
				if _, err := s.Messages(ctx, shared.ID); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkHistory(t, stores[1], shared.ID, writers, each)
}

// The helper process is this test binary run again; it appends messages to
// a session of a store whose path the parent passes in the environment.
const (
	helperEnvPath    = "TERN_SESSION_TEST_DB"
	helperEnvSession = "TERN_SESSION_TEST_ID"
)

func TestTwoProcessesWriteConcurrently(t *testing.T) {
	if path := os.Getenv(helperEnvPath); path != "" {
		writeAsHelper(t, path, os.Getenv(helperEnvSession))
		return
	}
	path := filepath.Join(t.TempDir(), "tern.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Create(t.Context(), "m", "/d")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestTwoProcessesWriteConcurrently$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnvPath+"="+path, helperEnvSession+"="+sess.ID)
	out := make(chan error, 1)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { out <- cmd.Wait() }()
	for n := range helperMessages {
		m := models.Message{Role: models.RoleUser, Content: fmt.Sprintf("parent %d", n)}
		if err := s.AppendMessage(t.Context(), sess.ID, m); err != nil {
			t.Error(err)
			break
		}
	}
	if err := <-out; err != nil {
		t.Fatalf("helper process: %v\n%s", err, output.String())
	}
	checkHistory(t, s, sess.ID, []string{"parent", "child"}, helperMessages)
}

const helperMessages = 100

func writeAsHelper(t *testing.T, path, id string) {
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for n := range helperMessages {
		m := models.Message{Role: models.RoleUser, Content: fmt.Sprintf("child %d", n)}
		if err := s.AppendMessage(t.Context(), id, m); err != nil {
			t.Fatal(err)
		}
	}
}
