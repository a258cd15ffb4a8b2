package agent

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// partialRecorder is a memRecorder that keeps the reply in flight, as
// the session store does, and counts its writes.
type partialRecorder struct {
	memRecorder
	pmu   sync.Mutex
	saves []string
}

func (r *partialRecorder) SavePartial(_ context.Context, _, text string) error {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.saves = append(r.saves, text)
	return nil
}

// TestPartialReplySavedAtABoundedRate streams a 500-piece reply while
// the clock moves 5 ms a reading: the text in flight is saved about every
// partialEvery, not once a piece, each save is a prefix of the reply, and
// the last write clears it once the reply is a message.
func TestPartialReplySavedAtABoundedRate(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()), ollamatest.WithCounter(counter(t).Count))
	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	pieces := make([]string, 500)
	for i := range pieces {
		pieces[i] = " w" + strconv.Itoa(i)
	}
	srv.Script(ollamatest.Reply{Chunks: pieces})
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(5 * time.Millisecond)
		return clock
	}
	rec := &partialRecorder{}
	cfg := Config{SessionID: "s1", Model: "qwen3:8b", NumCtx: 8192, System: "You are a test.", Now: now}
	a := New(cfg, client, tools.NewSet(tools.ReadOnlyTools(ws)...), rec, nil, counter(t))
	if err := a.Run(t.Context(), "talk", func(Event) {}); err != nil {
		t.Fatal(err)
	}
	reply := strings.Join(pieces, "")
	rec.pmu.Lock()
	defer rec.pmu.Unlock()
	n := len(rec.saves)
	t.Logf("%d saves", n)
	if n < 3 || n > len(pieces)/50 {
		t.Errorf("%d saves for %d pieces; want a few, about one per %s of streaming", n, len(pieces), partialEvery)
	}
	for i, s := range rec.saves[:n-1] {
		if s == "" || !strings.HasPrefix(reply, s) {
			t.Fatalf("save %d is not a prefix of the reply: %.40q", i, s)
		}
	}
	if rec.saves[n-1] != "" {
		t.Errorf("the partial reply was not cleared once the reply was saved")
	}
}
