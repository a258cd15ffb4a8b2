package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

var vocabulary = strings.Fields(`the parser reads tokens from the lexer and builds a tree of nodes
func main return error nil if err != nil { } ( ) := package import fmt strings
config file path handler request response server client cache window budget`)

func words(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			sep := byte(' ')
			if i%10 == 0 {
				sep = '\n'
			}
			b.WriteByte(sep)
		}
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
	return b.String()
}

// randomMessage draws the next message of a conversation after prev:
// questions, answers, tool calls with their results; mostly small, now and
// then a huge paste or output.
func randomMessages(r *rand.Rand, seq *int) []models.Message {
	size := func() int {
		switch p := r.Float64(); {
		case p < 0.03:
			return 4_000 + r.IntN(4_000)
		case p < 0.15:
			return 300 + r.IntN(1500)
		}
		return 5 + r.IntN(150)
	}
	switch r.IntN(3) {
	case 0:
		return []models.Message{{Role: models.RoleUser, Content: words(r, size())}}
	case 1:
		return []models.Message{{Role: models.RoleAssistant, Content: words(r, size())}}
	}
	a := models.Message{Role: models.RoleAssistant}
	var results []models.Message
	for range 1 + r.IntN(3) {
		*seq++
		id := fmt.Sprintf("call_%d", *seq)
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("dir/f%d.go", *seq)})
		a.ToolCalls = append(a.ToolCalls, models.ToolCall{ID: id, Name: "read_file", Arguments: args})
		results = append(results, models.Message{Role: models.RoleTool, ToolName: "read_file", ToolCallID: id, Content: words(r, size())})
	}
	return append([]models.Message{a}, results...)
}

// TestRequestsAlwaysFit is the agent's side of "never overflow": over random
// conversations, windows from 2k to 32k and calibrations either side of 1,
// every request fits the window less the reserve by tern's own recount,
// carries the newest user message, and starts with the same system prompt
// and tools, byte for byte, as the request before it.
func TestRequestsAlwaysFit(t *testing.T) {
	c := counter(t)
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	set := tools.NewSet(tools.ReadOnlyTools(ws)...)
	windows := []int{2048, 4096, 8192, 16384, 24576, 32768}
	seeds := uint64(6)
	if testing.Short() {
		seeds = 3
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			w := windows[r.IntN(len(windows))]
			cal := budget.Calibration{Factor: 0.8 + r.Float64()*0.6, Samples: 4}
			a := New(Config{SessionID: "s", Model: "m", NumCtx: w, System: "You are a test.\n" + words(r, 50), Calibration: cal},
				instantModel{}, set, &memRecorder{}, nil, c)
			a.remember(nil, models.Message{Role: models.RoleUser, Content: "first question"})
			var firstSystem string
			var firstTools []byte
			seq := 0
			for step := range 20 {
				req, asm := a.request(newTurn())
				checkRequest(t, c, a, req, asm)
				tb, _ := json.Marshal(req.Tools)
				if step == 0 {
					firstSystem, firstTools = req.Messages[0].Content, tb
				} else if req.Messages[0].Content != firstSystem || !bytes.Equal(tb, firstTools) {
					t.Fatalf("request %d: the prefix changed", step)
				}
				for _, m := range randomMessages(r, &seq) {
					a.remember(nil, m)
				}
			}
		})
	}
}

// recounts caches the test's own recount: the same messages come back in
// every request.
var recounts sync.Map

func recount(c *budget.Counter, m models.Message) int {
	calls, _ := json.Marshal(m.ToolCalls)
	key := string(m.Role) + "\x00" + m.Content + "\x00" + string(calls)
	if n, ok := recounts.Load(key); ok {
		return n.(int)
	}
	n := c.MessageTokens(m)
	recounts.Store(key, n)
	return n
}

func checkRequest(t *testing.T, c *budget.Counter, a *Agent, req models.Request, asm budget.Assembly) {
	t.Helper()
	if req.Messages[0].Role != models.RoleSystem {
		t.Fatal("the request does not start with the system prompt")
	}
	raw := 0
	for _, m := range req.Messages {
		raw += recount(c, m)
	}
	for _, s := range req.Tools {
		raw += c.Count(string(s.WireJSON()))
	}
	limit := a.cfg.NumCtx - a.cfg.Reserve
	if got := a.win.Model(raw); got > limit {
		t.Fatalf("request counts %d calibrated tokens, over the %d-token limit (window %d)", got, limit, a.cfg.NumCtx)
	}
	if req.Options.NumCtx != a.cfg.NumCtx || req.Options.NumPredict != a.cfg.Reserve {
		t.Errorf("options = %+v", req.Options)
	}
	want := ""
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].Role == models.RoleUser {
			want = a.history[i].Content
			break
		}
	}
	found := false
	for _, m := range req.Messages[1:] {
		if m.Role == models.RoleUser && (m.Content == want || strings.Contains(m.Content, "too large for the context window")) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the newest user message is missing (%d messages sent, %d dropped)", len(req.Messages), asm.Dropped)
	}
}

func TestHugePasteIsCutNotSentWhole(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.NumCtx = 4096 }))
	h.srv.Script(ollamatest.Reply{Content: "got it"})
	paste := strings.Repeat("0123456789 abcdef ghijkl mnopqr\n", 2500) // ~25k tokens
	if err := h.run(t.Context(), "summarise this log:\n"+paste); err != nil {
		t.Fatal(err)
	}
	rec := h.srv.Records()[0]
	if rec.Truncated {
		t.Fatal("the server had to truncate the paste")
	}
	sent := rec.Request.Messages[len(rec.Request.Messages)-1].Content
	if !strings.HasPrefix(sent, "summarise this log:") || !strings.Contains(sent, "too large for the context window") || len(sent) > len(paste)/4 {
		t.Errorf("sent %d bytes starting %.60q", len(sent), sent)
	}
	if h.rec.messages[0].Content != "summarise this log:\n"+paste {
		t.Error("the session did not keep the message whole")
	}
	if !hasNotice(h, "your message is about") {
		t.Errorf("no notice told the user; events: %v", h.types())
	}
}

// limitTool reports the output cap it was given.
type limitTool struct {
	mu     sync.Mutex
	limits []int
}

func (l *limitTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: "probe", Description: "test", Parameters: models.Schema(models.Param{Name: "n", Type: "integer"})}
}
func (l *limitTool) Effect() tools.Effect { return tools.ReadOnly }
func (l *limitTool) Run(_ context.Context, in tools.Input) tools.Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limits = append(l.limits, in.Limit)
	return tools.Result{Output: strings.Repeat("output line\n", in.Limit/12), Summary: "probed"}
}

func TestToolOutputCapFollowsTheBudget(t *testing.T) {
	limitsFor := func(numCtx int) []int {
		lt := &limitTool{}
		h := newHarness(t, ollamatest.Qwen3(), withTools(lt), withConfig(func(c *Config) { c.NumCtx = numCtx; c.CompactAt = 1 }))
		// Distinct arguments: the loop guard answers repeated calls itself.
		h.srv.Script(
			ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "probe", Args: `{"n":1}`}}},
			ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "probe", Args: `{"n":2}`}}},
			ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "probe", Args: `{"n":3}`}, {Name: "probe", Args: `{"n":4}`}}},
			ollamatest.Reply{Content: "done"},
		)
		if err := h.run(t.Context(), "probe it"); err != nil {
			t.Fatal(err)
		}
		for _, r := range h.srv.Records() {
			if r.Truncated {
				t.Errorf("window %d: a request was truncated", numCtx)
			}
		}
		return lt.limits
	}
	small, large := limitsFor(4096), limitsFor(32768)
	if len(small) != 4 || len(large) != 4 {
		t.Fatalf("limits = %v / %v", small, large)
	}
	if small[0] >= large[0] {
		t.Errorf("a 4k window allows %d bytes of output, a 32k one %d: the cap must follow the window", small[0], large[0])
	}
	if !(small[1] < small[0]) {
		t.Errorf("caps in a 4k window %v: each output must leave less room for the next", small)
	}
	if small[2] != small[3] || small[2] >= small[1] {
		t.Errorf("two calls in one reply should share the room: %v", small)
	}
	for _, l := range append(small, large...) {
		if l < budget.MinOutputBytes || l > budget.MaxOutputBytes {
			t.Errorf("cap %d outside [%d, %d]", l, budget.MinOutputBytes, budget.MaxOutputBytes)
		}
	}
}

func hasNotice(h *harness, text string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.events {
		if n, ok := e.(Notice); ok && strings.Contains(n.Text, text) {
			return true
		}
	}
	return false
}

// BenchmarkRequest32k200 assembles the request of a 32k-window session
// with 200 messages of history: the per-request cost of staying inside
// the window (messages are counted once, when they enter the history).
func BenchmarkRequest32k200(b *testing.B) {
	c := counter(b)
	ws, err := tools.NewWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var history []models.Message
	seq := 0
	for len(history) < 200 {
		history = append(history, models.Message{Role: models.RoleUser, Content: words(r, 40)})
		history = append(history, randomMessages(r, &seq)...)
	}
	a := New(Config{SessionID: "s", Model: "m", NumCtx: 32768, System: "You are a test.", History: history[:200],
		Calibration: budget.Calibration{Factor: 1.1, Samples: 5}},
		instantModel{}, tools.NewSet(tools.ReadOnlyTools(ws)...), &memRecorder{}, nil, c)
	a.PrefixTokens()
	for b.Loop() {
		a.request(newTurn())
	}
}

func TestWarnsWhenThePrefixCrowdsTheWindow(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) {
		c.NumCtx = 1024
		c.System = strings.Repeat("A very long set of house rules for the model. ", 40)
	}))
	h.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
	for range 2 {
		if err := h.run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, e := range h.events {
		if no, ok := e.(Notice); ok && strings.Contains(no.Text, "a larger --ctx would help") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings about the crowded window, want exactly 1", n)
	}
	for _, r := range h.srv.Records() {
		if r.Truncated {
			t.Error("a request was truncated")
		}
	}
}
