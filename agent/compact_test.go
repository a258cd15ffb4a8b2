package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/context/compact"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

const notes = `Goal: understand how big.go parses its input.
Files: big.go (parse, lex), small.txt.
Decisions: read the parser before changing anything.
Open problems: none.
Next step: answer the user's latest question.`

// session is a scripted model that works like a small model on a coding
// task: for each question it reads a large file, greps, then answers; it
// writes notes when asked to summarise. summary, when set, replaces the
// notes reply.
type scripted struct {
	mu        sync.Mutex
	summaries int
	summary   *ollamatest.Reply
}

func (s *scripted) respond(req api.ChatRequest) ollamatest.Reply {
	if strings.Contains(req.Messages[0].Content, "working notes of a coding session") {
		s.mu.Lock()
		s.summaries++
		s.mu.Unlock()
		if s.summary != nil {
			return *s.summary
		}
		return ollamatest.Reply{Content: notes}
	}
	results := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
		if req.Messages[i].Role == "tool" {
			results++
		}
	}
	switch results {
	case 0:
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"big.go"}`}}}
	case 1:
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"func"}`}}}
	}
	return ollamatest.Reply{Content: "The parser reads tokens one at a time and builds the tree; " + strings.Repeat("it handles errors by returning them. ", 8)}
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.summaries
}

// longSession wires an agent to a fake Ollama whose tokenizer counts
// scale times what tern counts, to a real session store, and to a
// workspace with a file far larger than the window.
func longSession(t *testing.T, numCtx int, scale float64, model *scripted, cfg func(*Config)) (*harness, *session.Store, *savedCalibration) {
	t.Helper()
	root := t.TempDir()
	var big strings.Builder
	for i := range 600 {
		fmt.Fprintf(&big, "// parse%d reads one token.\nfunc parse%d(in string) (string, error) { return in, nil }\n", i, i)
	}
	for name, body := range map[string]string{"big.go": big.String(), "small.txt": "small\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	c := counter(t)
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()),
		ollamatest.WithCounter(func(s string) int { return int(float64(c.Count(s)) * scale) }),
		ollamatest.WithResponder(model.respond))
	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	store, err := session.Open(t.Context(), filepath.Join(t.TempDir(), "tern.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	sess, err := store.Create(t.Context(), "qwen3:8b", root)
	if err != nil {
		t.Fatal(err)
	}
	saved := &savedCalibration{}
	conf := Config{SessionID: sess.ID, Model: "qwen3:8b", NumCtx: numCtx, System: "You are a test.", Calibrations: saved}
	if cfg != nil {
		cfg(&conf)
	}
	h := &harness{t: t, srv: srv, rec: &memRecorder{}}
	h.agent = New(conf, client, tools.NewSet(tools.ReadOnlyTools(ws)...), store, nil, c)
	return h, store, saved
}

type savedCalibration struct {
	mu      sync.Mutex
	model   string
	factor  float64
	samples int
}

func (s *savedCalibration) SaveCalibration(_ context.Context, model string, factor float64, samples int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.model, s.factor, s.samples = model, factor, samples
	return nil
}

// TestLongSessionIn2kWindow runs a long session in a 2048-token window:
// every request fits (the fake never truncates), the history is compacted
// along the way with the old messages kept in the store, and every turn
// completes.
func TestLongSessionIn2kWindow(t *testing.T) {
	model := &scripted{}
	h, store, saved := longSession(t, 2048, 1, model, nil)
	for i := range 12 {
		if err := h.run(t.Context(), fmt.Sprintf("Question %d: how does parse%d handle %s?", i, i, strings.Repeat("odd input ", 10))); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if d := h.done(); d.Reason != DoneStop {
			t.Fatalf("turn %d ended %q: %s", i, d.Reason, d.Error)
		}
	}
	for i, r := range h.srv.Records() {
		if r.Truncated || r.PromptEvalCount >= 2048 {
			t.Errorf("request %d was truncated: %d tokens, %d messages dropped", i, r.PromptTokens, r.DroppedMessages)
		}
	}
	if !hasNotice(h, "compacted the conversation") || model.count() == 0 {
		t.Errorf("no compaction happened (%d summaries asked)", model.count())
	}
	all, err := store.AllMessages(t.Context(), h.agent.cfg.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	active, err := store.Messages(t.Context(), h.agent.cfg.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	superseded := 0
	for _, m := range all {
		if m.Superseded {
			superseded++
		}
	}
	if superseded == 0 || len(active) >= len(all)-superseded+superseded || !strings.Contains(all[0].Content, "Question 0") {
		t.Errorf("store: %d messages, %d superseded, %d active; the pre-compaction history must stay on record", len(all), superseded, len(active))
	}
	if !strings.HasPrefix(active[0].Content, compact.SummaryPrefix) && active[0].Content != compact.TrimNote {
		t.Errorf("the active history starts with %.80q, not the summary", active[0].Content)
	}
	if saved.model != "qwen3:8b" || saved.samples == 0 {
		t.Errorf("calibration was not saved: %+v", saved)
	}
}

// TestCalibrationCatchesAModelThatCountsMore runs against a model whose
// tokenizer counts 60% more than tern's: the first full request
// overflows, tern notices from prompt_eval_count, warns, compacts and asks
// again, and learns the factor so that later requests fit.
func TestCalibrationCatchesAModelThatCountsMore(t *testing.T) {
	model := &scripted{}
	h, _, saved := longSession(t, 4096, 1.6, model, func(c *Config) {
		for i := range 20 {
			c.History = append(c.History,
				models.Message{Role: models.RoleUser, Content: fmt.Sprintf("earlier question %d about the lexer", i)},
				models.Message{Role: models.RoleAssistant, Content: strings.Repeat("The lexer splits the input into tokens. ", 12)})
		}
		c.CompactAt = 0.95 // let the first request come close to the window
	})
	if err := h.run(t.Context(), "what does parse3 do?"); err != nil {
		t.Fatal(err)
	}
	recs := h.srv.Records()
	if !recs[0].Truncated {
		t.Fatalf("the first request was not truncated (%d tokens in %d); the test does not test anything", recs[0].PromptTokens, recs[0].NumCtx)
	}
	if !hasNotice(h, "probably cut") {
		t.Error("the user was not warned about the cut prompt")
	}
	var factors []float64
	for _, e := range h.events {
		if m, ok := e.(Message); ok && m.Usage != nil {
			factors = append(factors, m.Usage.Factor)
		}
	}
	if f := factors[len(factors)-1]; f < 1.4 || f > 1.9 {
		t.Errorf("factor = %.2f after the turn, want about 1.6 (history %v)", f, factors)
	}
	first := len(recs)
	if err := h.run(t.Context(), "and parse4?"); err != nil {
		t.Fatal(err)
	}
	for i, r := range h.srv.Records()[first:] {
		if r.Truncated {
			t.Errorf("request %d of the calibrated turn was truncated", i)
		}
	}
	if saved.factor < 1.4 {
		t.Errorf("saved factor %.2f", saved.factor)
	}
}

func TestSummaryFailureFallsBackToTrim(t *testing.T) {
	for name, reply := range map[string]ollamatest.Reply{
		"server error": {Status: 500, Error: "llama runner process has terminated"},
		"garbage":      {Content: "ok ok ok"},
		"empty":        {Content: ""},
	} {
		t.Run(name, func(t *testing.T) {
			model := &scripted{summary: &reply}
			h, _, _ := longSession(t, 2048, 1, model, nil)
			for i := range 6 {
				if err := h.run(t.Context(), fmt.Sprintf("question %d %s", i, strings.Repeat("about parsing ", 10))); err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
			}
			if model.count() == 0 || !hasNotice(h, "could not be used") || !hasNotice(h, "dropped") {
				t.Errorf("summaries %d; want a warning and a trim", model.count())
			}
			for i, r := range h.srv.Records() {
				if r.Truncated {
					t.Errorf("request %d truncated", i)
				}
			}
		})
	}
}

// replacing is a recorder that also takes compacted histories.
type replacing struct {
	memRecorder
	replaced [][]models.Message
}

func (r *replacing) ReplaceHistory(_ context.Context, _ string, msgs []models.Message) error {
	r.replaced = append(r.replaced, msgs)
	return nil
}

func TestCompactOnDemand(t *testing.T) {
	c := counter(t)
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()), ollamatest.WithCounter(c.Count))
	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var history []models.Message
	for i := range 8 {
		history = append(history,
			models.Message{Role: models.RoleUser, Content: fmt.Sprintf("question %d", i)},
			models.Message{Role: models.RoleAssistant, Content: strings.Repeat("a long answer ", 60)})
	}
	rec := &replacing{}
	ws, _ := tools.NewWorkspace(t.TempDir())
	a := New(Config{SessionID: "s", Model: "qwen3:8b", NumCtx: 8192, System: "sys", History: history},
		client, tools.NewSet(tools.ReadOnlyTools(ws)...), rec, nil, c)
	srv.Script(ollamatest.Reply{Content: notes})
	var events []Event
	if err := a.Compact(t.Context(), func(e Event) { events = append(events, e) }); err != nil {
		t.Fatal(err)
	}
	// 8k is far from full, but /compact compacts anyway.
	if len(rec.replaced) != 1 || !strings.HasPrefix(rec.replaced[0][0].Content, compact.SummaryPrefix) {
		t.Fatalf("replaced = %v", rec.replaced)
	}
	if len(events) != 1 || !strings.Contains(events[0].(Notice).Text, "summarised") {
		t.Errorf("events = %+v", events)
	}
	req := srv.Requests()[0]
	if len(req.Tools) != 0 || req.Options["num_ctx"] != float64(8192) {
		t.Errorf("the summary request must carry no tools and keep the window: %d tools, num_ctx %v", len(req.Tools), req.Options["num_ctx"])
	}
	if got := a.History(); len(got) >= len(history) {
		t.Errorf("history has %d messages after compaction", len(got))
	}

	// Compacting again has nothing left to fold.
	events = nil
	if err := a.Compact(t.Context(), func(e Event) { events = append(events, e) }); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || !strings.Contains(events[0].(Notice).Text, "nothing to compact") {
		t.Errorf("second compaction: %+v", events)
	}
}

// TestStalledCompactionIsNotRepeated: a compaction that frees (almost)
// nothing is not tried again before every request, only once the history
// has grown by 5% of the window.
func TestStalledCompactionIsNotRepeated(t *testing.T) {
	c := counter(t)
	ws, _ := tools.NewWorkspace(t.TempDir())
	rec := &replacing{}
	// The current turn alone passes the threshold but fits the window, so
	// nothing can be compacted yet.
	a := New(Config{SessionID: "s", Model: "m", NumCtx: 2048, System: "You are a test.", CompactAt: 0.6},
		instantModel{}, tools.NewSet(tools.ReadOnlyTools(ws)...), rec, nil, c)
	a.remember(nil, models.Message{Role: models.RoleUser, Content: strings.Repeat("question words ", 150)})
	a.remember(nil, models.Message{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{{ID: "c1", Name: "read_file", Arguments: []byte(`{"path":"a.go"}`)}}})
	a.remember(nil, models.Message{Role: models.RoleTool, ToolName: "read_file", ToolCallID: "c1", Content: strings.Repeat("func f() {}\n", 400)})
	threshold := 2048*6/10 - a.PrefixTokens()
	if h := a.historyCost(); h <= threshold || h > a.room(nil) {
		t.Fatalf("setup: the turn costs %d; it must pass the threshold (%d) and fit the room (%d)", h, threshold, a.room(nil))
	}
	var notices []string
	send := func(e Event) { notices = append(notices, e.(Notice).Text) }
	if err := a.autoCompact(t.Context(), nil, send); err != nil {
		t.Fatal(err)
	}
	if len(rec.replaced) != 0 || a.stalledAt == 0 {
		t.Fatalf("compaction of an unfinished turn changed the history (%d) or did not stall (%d)", len(rec.replaced), a.stalledAt)
	}

	// A new turn makes the old output prunable, but the history has not
	// grown: no new attempt.
	a.remember(nil, models.Message{Role: models.RoleAssistant, Content: "ok"})
	a.remember(nil, models.Message{Role: models.RoleUser, Content: "next?"})
	if err := a.autoCompact(t.Context(), nil, send); err != nil {
		t.Fatal(err)
	}
	if len(rec.replaced) != 0 {
		t.Fatal("a stalled compaction was repeated before the history grew")
	}

	// Once it has grown by 5% of the window, compaction runs again.
	a.remember(nil, models.Message{Role: models.RoleAssistant, Content: strings.Repeat("more words ", 60)})
	if err := a.autoCompact(t.Context(), nil, send); err != nil {
		t.Fatal(err)
	}
	if len(rec.replaced) != 1 || !strings.Contains(strings.Join(notices, "\n"), "pruned 1 tool output") {
		t.Errorf("compaction did not resume: %d replaced, notices %q", len(rec.replaced), notices)
	}
}
