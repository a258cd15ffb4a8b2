package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// countOnly is a counter that cannot bound: an agent given it counts
// everything from the start, as agents did before the bounded start.
type countOnly struct{ c *budget.Counter }

func (c countOnly) Count(s string) int                 { return c.c.Count(s) }
func (c countOnly) MessageTokens(m models.Message) int { return c.c.MessageTokens(m) }

// scriptModel records the requests it gets and whether the agent was
// still bounded when each was sent, and replies with a fixed answer.
type scriptModel struct {
	agent   **Agent
	reqs    []models.Request
	bounded []bool
}

func (m *scriptModel) Chat(_ context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error) {
	m.reqs = append(m.reqs, req)
	m.bounded = append(m.bounded, (*m.agent).bounded)
	onDelta(models.Delta{Content: "ok"})
	return models.Reply{Message: models.Message{Role: models.RoleAssistant, Content: "ok"}, DoneReason: "stop",
		Metrics: models.Metrics{PromptTokens: 700, EvalTokens: 1}}, nil
}

// TestBoundedStartChangesNothing runs the same turns with an agent that
// starts bounded and one that counts from the start, over random resumed
// histories, windows, calibrations and tool protocols: the requests, the
// events (usage and plans included) and the learnt calibration must be
// the same, byte for byte. Some of the bounded agents must have sent
// their first request uncounted, and some must have had to count first.
func TestBoundedStartChangesNothing(t *testing.T) {
	c := counter(t)
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	set := tools.NewSet(tools.ReadOnlyTools(ws)...)
	windows := []int{1024, 2048, 4096, 8192, 32768}
	uncounted, counted := 0, 0
	seeds := uint64(40)
	if testing.Short() {
		seeds = 12
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 5))
		var history []models.Message
		seq := 0
		for range r.IntN(6) {
			history = append(history, randomMessages(r, &seq)...)
		}
		cfg := Config{
			SessionID: "s", Model: "m", NumCtx: windows[r.IntN(len(windows))],
			System: "You are a test.\n" + words(r, 20+r.IntN(300)), History: history,
			Now: func() time.Time { return time.Unix(0, 0) },
		}
		if r.IntN(4) > 0 {
			cfg.Calibration = budget.Calibration{Factor: budget.MinFactor + r.Float64()*(budget.MaxFactor-budget.MinFactor), Samples: 3}
		}
		if r.IntN(3) == 0 {
			cfg.ToolFormat = models.FormatTagged
			cfg.TextTools = true
		}
		prompts := []string{words(r, 3+r.IntN(40)), words(r, 3+r.IntN(2000))}
		run := func(tc tokenCounter) (*scriptModel, []string, budget.Calibration) {
			var a *Agent
			m := &scriptModel{agent: &a}
			a = New(cfg, m, set, &memRecorder{}, nil, tc)
			var events []string
			for _, p := range prompts {
				err := a.Run(context.Background(), p, func(e Event) {
					b, _ := json.Marshal(e)
					events = append(events, fmt.Sprintf("%T %s", e, b))
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			return m, events, a.Calibration()
		}
		bm, bev, bcal := run(c)
		em, eev, ecal := run(countOnly{c})
		if len(bm.reqs) != len(em.reqs) {
			t.Fatalf("seed %d: %d requests bounded, %d counted", seed, len(bm.reqs), len(em.reqs))
		}
		for i := range bm.reqs {
			b, _ := json.Marshal(bm.reqs[i])
			e, _ := json.Marshal(em.reqs[i])
			if string(b) != string(e) {
				t.Fatalf("seed %d: request %d differs:\nbounded %.300s\ncounted %.300s", seed, i, b, e)
			}
		}
		if strings.Join(bev, "\n") != strings.Join(eev, "\n") {
			for i := range min(len(bev), len(eev)) {
				if bev[i] != eev[i] {
					t.Fatalf("seed %d: event %d differs:\nbounded %.400s\ncounted %.400s", seed, i, bev[i], eev[i])
				}
			}
			t.Fatalf("seed %d: %d events bounded, %d counted", seed, len(bev), len(eev))
		}
		if bcal != ecal {
			t.Errorf("seed %d: calibration %+v bounded, %+v counted", seed, bcal, ecal)
		}
		if bm.bounded[0] {
			uncounted++
		} else {
			counted++
		}
		if len(bm.bounded) > 1 && bm.bounded[1] {
			t.Errorf("seed %d: the second request was sent bounded", seed)
		}
	}
	if uncounted == 0 || counted == 0 {
		t.Errorf("first requests: %d sent uncounted, %d counted first; the test must see both", uncounted, counted)
	}
}
