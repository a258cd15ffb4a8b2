package budget

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/ternhq/tern/models"
)

var words = strings.Fields(`the parser reads tokens from the lexer and builds a tree of nodes
func main return error nil if err != nil { } ( ) := package import fmt strings
config file path handler request response server client cache window budget`)

// text is n words of prose and code, a line to every 12 words: a run of
// wordPool from a random word on. Drawing each word anew made the
// histories of TestWholeDecidesWithBounds and TestAssembleAlwaysFits (75
// MB of text in the first) most of the package's time under -race; the
// tests read only lengths, roles and lines from it.
func text(r *rand.Rand, n int) string {
	if n == 0 {
		return ""
	}
	p := wordPool()
	i := r.IntN(len(p.starts) - n)
	return p.text[p.starts[i] : p.starts[i+n]-1]
}

// pool is a long text of random words, and where each word starts.
type pool struct {
	text   string
	starts []int
}

// wordPool is 40,000 words drawn from words, more than text is ever
// asked for at once, with a line break after every 12th.
var wordPool = sync.OnceValue(func() pool {
	r := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	var p pool
	for i := range 40_000 {
		p.starts = append(p.starts, b.Len())
		b.WriteString(words[r.IntN(len(words))])
		if i%12 == 11 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	p.starts = append(p.starts, b.Len())
	p.text = b.String()
	return p
})

// size draws a message length in words: mostly small, sometimes large,
// now and then as many as huge.
func size(r *rand.Rand, huge int) int {
	switch p := r.Float64(); {
	case p < 0.03:
		return huge/2 + r.IntN(huge/2)
	case p < 0.15:
		return 500 + r.IntN(3000)
	default:
		return 5 + r.IntN(200)
	}
}

// randomHistory makes a conversation of turns: a question, then steps of
// tool calls and results, then (usually) an answer. The last turn may be
// unfinished, as it is in the middle of a turn.
func randomHistory(r *rand.Rand, turns, huge int) []models.Message {
	var h []models.Message
	call := 0
	for t := range turns {
		h = append(h, models.Message{Role: models.RoleUser, Content: fmt.Sprintf("Q%d %s", t, text(r, size(r, huge)))})
		for range r.IntN(4) {
			n := 1 + r.IntN(3)
			a := models.Message{Role: models.RoleAssistant, Content: text(r, r.IntN(20))}
			var results []models.Message
			for range n {
				call++
				id := fmt.Sprintf("call_%d", call)
				args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("f%d.go", call)})
				a.ToolCalls = append(a.ToolCalls, models.ToolCall{ID: id, Name: "read_file", Arguments: args})
				results = append(results, models.Message{Role: models.RoleTool, ToolName: "read_file", ToolCallID: id, Content: text(r, size(r, huge))})
			}
			h = append(h, a)
			h = append(h, results...)
		}
		if t < turns-1 || r.IntN(2) == 0 {
			h = append(h, models.Message{Role: models.RoleAssistant, Content: text(r, size(r, huge))})
		}
	}
	return h
}

func costsOf(m Meter, h []models.Message) []int {
	costs := make([]int, len(h))
	for i, msg := range h {
		costs[i] = m.MessageTokens(msg)
	}
	return costs
}

// byteMeter counts a token per four bytes: a fast stand-in for the BPE, so
// the property can be checked over many conversations.
type byteMeter struct{}

func (byteMeter) Count(s string) int { return (len(s) + 3) / 4 }
func (m byteMeter) MessageTokens(msg models.Message) int {
	n := messageOverhead + m.Count(msg.Content)
	for _, tc := range msg.ToolCalls {
		n += messageOverhead + m.Count(tc.Name) + m.Count(string(tc.Arguments))
	}
	return n
}

// TestAssembleAlwaysFits is the property behind "never overflow": for
// random conversations, windows from 2k to 32k and calibrations either
// side of 1, the assembled prompt fits the window less the reserve, holds
// the newest user message (whole, or cut with a note), and never sends a
// tool result without its call. A few seeds use the real counter, many a
// fast stand-in.
func TestAssembleAlwaysFits(t *testing.T) {
	real := newCounter(t)
	windows := []int{2048, 4096, 8192, 12288, 16384, 24576, 32768}
	seeds := uint64(150)
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		// Stand-in seeds have messages larger than any window; the BPE is
		// slow on those, so its seeds stop at a few windows' worth.
		var m Meter = byteMeter{}
		huge := 30_000
		if seed < 4 {
			m, huge = real, 8_000
		}
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			h := randomHistory(r, 1+r.IntN(12), huge)
			w := windows[r.IntN(len(windows))]
			in := Input{
				Window: w, Reserve: max(w/5, 512),
				Calibration: Calibration{Factor: 0.8 + r.Float64()*0.7, Samples: 3},
				Prefix:      200 + r.IntN(w/5),
				History:     h, Costs: costsOf(m, h),
			}
			checkAssembly(t, m, in, Assemble(m, in))
		})
	}
}

func checkAssembly(t *testing.T, c Meter, in Input, a Assembly) {
	t.Helper()
	raw := in.Prefix
	for _, m := range a.Messages {
		raw += c.MessageTokens(m)
	}
	limit := in.Window - in.Reserve
	if got := in.Calibration.Scale(raw); got > limit {
		t.Fatalf("prompt counts %d calibrated tokens (%d raw), over the %d-token limit", got, raw, limit)
	}
	if a.Estimate != raw {
		t.Errorf("Estimate = %d, recount %d", a.Estimate, raw)
	}
	if a.Plan.Used() > limit || a.Plan.Free() < 0 {
		t.Errorf("plan %s exceeds the limit %d", a.Plan, limit)
	}
	u := currentUser(in.History)
	if u >= 0 {
		want := in.History[u].Content
		found := false
		for _, m := range a.Messages {
			if m.Role == models.RoleUser && (m.Content == want ||
				strings.HasPrefix(m.Content, want[:min(len(want), 3)]) && strings.Contains(m.Content, "too large for the context window")) {
				found = true
			}
		}
		if !found {
			t.Fatalf("the newest user message is not in the request")
		}
	}
	calls := map[string]bool{}
	for _, m := range a.Messages {
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = true
		}
		if m.Role == models.RoleTool && !calls[m.ToolCallID] {
			t.Fatalf("tool result %s is sent without its call", m.ToolCallID)
		}
	}
	if a.Dropped+len(a.Messages) != len(in.History) {
		t.Errorf("dropped %d + sent %d != %d messages", a.Dropped, len(a.Messages), len(in.History))
	}
}

func TestAssembleCutsAHugeMessage(t *testing.T) {
	c := newCounter(t)
	huge := strings.Repeat("all work and no play makes a dull model\n", 3_000)
	h := []models.Message{{Role: models.RoleUser, Content: huge}}
	in := Input{Window: 4096, Reserve: 819, Prefix: 300, History: h, Costs: costsOf(c, h)}
	a := Assemble(c, in)
	checkAssembly(t, c, in, a)
	if a.Shortened != 1 || !strings.Contains(a.Messages[0].Content, "tokens cut here") {
		t.Errorf("shortened = %d; message starts %.80q", a.Shortened, a.Messages[0].Content)
	}
}

func TestOutputLimit(t *testing.T) {
	tests := []struct{ left, calls, want int }{
		{10_000, 1, 15_000},
		{10_000, 3, 5_000},
		{100, 1, MinOutputBytes},
		{1_000_000, 1, MaxOutputBytes},
	}
	for _, tt := range tests {
		if got := OutputLimit(tt.left, tt.calls); got != tt.want {
			t.Errorf("OutputLimit(%d, %d) = %d, want %d", tt.left, tt.calls, got, tt.want)
		}
	}
}

// BenchmarkAssemble32k200 assembles a 32k-window request from a 200-message
// history with every message already counted, as the agent does per request.
func BenchmarkAssemble32k200(b *testing.B) {
	c := newCounter(b)
	r := rand.New(rand.NewPCG(1, 2))
	var h []models.Message
	for len(h) < 200 {
		h = append(h, models.Message{Role: models.RoleUser, Content: text(r, 30)},
			models.Message{Role: models.RoleAssistant, Content: text(r, 150)})
	}
	in := Input{Window: 32768, Reserve: 6553, Prefix: 1500, Calibration: Calibration{Factor: 1.1}, History: h, Costs: costsOf(c, h)}
	for b.Loop() {
		Assemble(c, in)
	}
}

// TestWholeDecidesWithBounds is what lets a caller send a request before
// it can count: when the whole history fits by upper bounds of the counts,
// at any calibration, it fits by the counts themselves, and Assemble sends
// the same messages, uncut, whichever it is given.
func TestWholeDecidesWithBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	windows := []int{2048, 4096, 8192, 32768}
	whole := 0
	for range 3000 {
		h := randomHistory(r, 1+r.IntN(4), 3000)
		if r.IntN(3) == 0 {
			h = h[1+r.IntN(len(h)):] // a history that starts mid-turn, or is empty
			h = append(h, models.Message{Role: models.RoleUser, Content: text(r, 20)})
		}
		w := windows[r.IntN(len(windows))]
		exact := Input{
			Window: w, Reserve: max(w/5, 512),
			Calibration: Calibration{Factor: MinFactor + r.Float64()*(MaxFactor-MinFactor), Samples: 3},
			Prefix:      50 + r.IntN(w/4), Retrieval: r.IntN(2) * r.IntN(w/8),
			History: h, Costs: costsOf(byteMeter{}, h),
		}
		if r.IntN(5) == 0 {
			exact.Calibration = Calibration{}
		}
		bound := exact
		bound.Prefix += r.IntN(3) * r.IntN(200)
		bound.Retrieval += r.IntN(2) * r.IntN(50)
		bound.Costs = make([]int, len(h))
		for i, c := range exact.Costs {
			bound.Costs[i] = c + r.IntN(2)*r.IntN(c+1)
		}
		if !Whole(bound) {
			continue
		}
		whole++
		if !Whole(exact) {
			t.Fatalf("fits by bounds, not by counts: %+v", exact)
		}
		a, b := Assemble(byteMeter{}, exact), Assemble(byteMeter{}, bound)
		if a.Shortened != 0 || b.Shortened != 0 || len(a.Messages) != len(b.Messages) {
			t.Fatalf("assemblies differ: shortened %d/%d, sent %d/%d messages", a.Shortened, b.Shortened, len(a.Messages), len(b.Messages))
		}
		for i := range a.Messages {
			if a.Messages[i].Content != b.Messages[i].Content || a.Messages[i].Role != b.Messages[i].Role {
				t.Fatalf("message %d differs", i)
			}
		}
	}
	if whole < 300 {
		t.Errorf("only %d of 3000 cases fit whole; the test checks too little", whole)
	}
}
