package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

// cost counts a token per four bytes, plus four per message: plain enough
// to reason about in a test.
func count(s string) int { return (len(s) + 3) / 4 }

func cost(m models.Message) int {
	n := 4 + count(m.Content)
	for _, c := range m.ToolCalls {
		n += 4 + count(c.Name) + count(string(c.Arguments))
	}
	return n
}

func costs(h []models.Message) []int {
	c := make([]int, len(h))
	for i, m := range h {
		c[i] = cost(m)
	}
	return c
}

func total(c []int) int {
	n := 0
	for _, x := range c {
		n += x
	}
	return n
}

func user(s string) models.Message { return models.Message{Role: models.RoleUser, Content: s} }
func answer(s string) models.Message {
	return models.Message{Role: models.RoleAssistant, Content: s}
}

// toolTurn is a question, a read_file call with its output, and an answer.
func toolTurn(i int, output string) []models.Message {
	id := fmt.Sprintf("call_%d", i)
	return []models.Message{
		user(fmt.Sprintf("question %d", i)),
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{{ID: id, Name: "read_file", Arguments: []byte(fmt.Sprintf(`{"path":"f%d.go"}`, i))}}},
		{Role: models.RoleTool, ToolName: "read_file", ToolCallID: id, Content: output},
		answer(fmt.Sprintf("answer %d", i)),
	}
}

const goodNotes = `Goal: make the parser accept trailing commas.
Files: parser.go (parseList), parser_test.go.
Decisions: allow one trailing comma in lists only.
Open problems: none.
Next step: run go test ./parser.`

func fixedSummary(text string, err error) (Summarizer, *[]string) {
	var asked []string
	return func(_ context.Context, system, user string, _ int) (string, error) {
		asked = append(asked, system+"\n"+user)
		return text, err
	}, &asked
}

func ladder(s Summarizer) Ladder {
	return Ladder{Cost: cost, Count: count, Summarize: s, SummaryMax: 120, TranscriptMax: 2000}
}

func TestPruneKeepsTheNewest(t *testing.T) {
	big := strings.Repeat("source line\n", 300) // ~900 tokens
	var h []models.Message
	for i := range 3 {
		h = append(h, toolTurn(i, big)...)
	}
	// The current turn is mid-step: its output is not answered yet.
	h = append(h, toolTurn(3, big)[:3]...)
	s, asked := fixedSummary(goodNotes, nil)
	r, err := ladder(s).Compact(t.Context(), h, costs(h), 1500)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pruned != 3 || r.Summarized != 0 || r.Trimmed != 0 || len(*asked) != 0 {
		t.Fatalf("result = %s (pruned %d, summarised %d, trimmed %d); want only the 3 old outputs pruned", r, r.Pruned, r.Summarized, r.Trimmed)
	}
	if r.After > 1500 || r.After != total(r.Costs) || len(r.History) != len(h) {
		t.Errorf("after = %d (costs say %d), %d messages", r.After, total(r.Costs), len(r.History))
	}
	if got := r.History[len(h)-1].Content; got != big {
		t.Error("the newest output, not yet answered, was pruned")
	}
	stub := r.History[2].Content
	if !strings.Contains(stub, `read_file {"path":"f0.go"}`) || !strings.Contains(stub, "call it again") {
		t.Errorf("stub = %q; want the call it answered and a way back", stub)
	}
}

func TestPruneAnsweredOutputs(t *testing.T) {
	// The last step was answered, so no output is waiting for the model.
	h := append(toolTurn(0, strings.Repeat("source line\n", 300)), user("and now?"))
	r, err := ladder(nil).Compact(t.Context(), h, costs(h), 200)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pruned != 1 || r.Trimmed != 0 || !strings.HasPrefix(r.History[2].Content, stubPrefix) {
		t.Errorf("result = %s; want the answered output pruned", r)
	}
}

func TestSummaryReplacesTheOldestTurns(t *testing.T) {
	var h []models.Message
	for i := range 12 {
		h = append(h, user(fmt.Sprintf("question %d: %s", i, strings.Repeat("words ", 40))), answer(strings.Repeat("reply ", 60)))
	}
	s, asked := fixedSummary("<think>let me see</think>\n"+goodNotes, nil)
	r, err := ladder(s).Compact(t.Context(), h, costs(h), 800)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summarized == 0 || r.SummaryErr != nil || r.Trimmed != 0 {
		t.Fatalf("result = %s, summary error %v", r, r.SummaryErr)
	}
	first := r.History[0]
	if first.Role != models.RoleUser || !strings.HasPrefix(first.Content, SummaryPrefix) || !strings.Contains(first.Content, "trailing commas") || strings.Contains(first.Content, "<think>") {
		t.Errorf("first message = %q; want the notes", first.Content)
	}
	if last := r.History[len(r.History)-1]; last.Content != h[len(h)-1].Content || r.History[len(r.History)-2].Content != h[len(h)-2].Content {
		t.Error("the newest turn was not kept whole")
	}
	if r.After > 800 {
		t.Errorf("after = %d, want at most 800", r.After)
	}
	if len(*asked) != 1 || !strings.Contains((*asked)[0], "User: question 0:") || !strings.Contains((*asked)[0], "Next step:") {
		t.Errorf("summary prompt = %q", *asked)
	}

	// A second compaction folds the earlier notes into new ones.
	h2 := append(r.History, user("question 12: "+strings.Repeat("more ", 300)), answer(strings.Repeat("ok ", 300)))
	s2, asked2 := fixedSummary(goodNotes, nil)
	r2, err := ladder(s2).Compact(t.Context(), h2, costs(h2), 800)
	if err != nil {
		t.Fatal(err)
	}
	if len(*asked2) != 1 || !strings.Contains((*asked2)[0], "Earlier notes:\nGoal:") {
		t.Errorf("the earlier summary was not in the transcript: %q", *asked2)
	}
	if n := strings.Count(fmt.Sprint(r2.History), SummaryPrefix); n != 1 {
		t.Errorf("%d summaries in the history, want 1", n)
	}
}

func TestBadSummaryFallsBackToTrim(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		err   error
		want  string
	}{
		{"request fails", "", errors.New("llama runner process has terminated"), "terminated"},
		{"empty", "  \n", nil, "returned nothing"},
		{"garbage", strings.Repeat("the the the\n", 40), nil, "parts asked for"},
		{"loop", strings.Repeat("Goal: x\nFiles: y\n", 10), nil, "repeats itself"},
		{"tool call", `<tool_call>{"name":"read_file"}</tool_call> goal files`, nil, "tool call"},
		{"too big to help", "Goal: " + strings.Repeat("everything ", 600) + "\nFiles: all", nil, "no smaller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []models.Message
			for i := range 10 {
				h = append(h, user(fmt.Sprintf("question %d: %s", i, strings.Repeat("words ", 40))), answer(strings.Repeat("reply ", 60)))
			}
			if tt.name == "too big to help" {
				h = append([]models.Message{user("tiny"), answer(strings.Repeat("x", 4400))}, h[len(h)-4:]...)
			}
			s, _ := fixedSummary(tt.reply, tt.err)
			l := ladder(s)
			if tt.name == "too big to help" {
				l.SummaryMax = 2000
			}
			r, err := l.Compact(t.Context(), h, costs(h), 300)
			if err != nil {
				t.Fatal(err)
			}
			if r.SummaryErr == nil || !strings.Contains(r.SummaryErr.Error(), tt.want) {
				t.Fatalf("summary error = %v, want %q", r.SummaryErr, tt.want)
			}
			if r.Trimmed == 0 || r.History[0].Content != TrimNote {
				t.Fatalf("history was not trimmed with a note: %s, first %q", r, r.History[0].Content)
			}
			if r.After > 300 {
				t.Errorf("after = %d, want at most 300", r.After)
			}
			if r.History[len(r.History)-2].Content != h[len(h)-2].Content {
				t.Error("the current question was dropped")
			}
		})
	}
}

func TestTrimKeepsQuestionOfAHugeTurn(t *testing.T) {
	h := []models.Message{user("old"), answer("old answer")}
	turn := toolTurn(1, strings.Repeat("x", 4000))
	turn = append(turn[:3], toolTurn(2, strings.Repeat("y", 4000))[1:3]...)
	h = append(h, turn...)
	r, err := ladder(nil).Compact(t.Context(), h, costs(h), 400)
	if err != nil {
		t.Fatal(err)
	}
	if r.History[1].Content != "question 1" {
		t.Errorf("history = %v; want the note, the question, then the newest step", r.History)
	}
	for i, m := range r.History {
		if m.Role == models.RoleTool && (i == 0 || len(r.History[i-1].ToolCalls) == 0) {
			t.Errorf("tool result %d lost its call", i)
		}
	}
}

func TestCurrentTurnWithinLimitIsLeftWhole(t *testing.T) {
	var h []models.Message
	for i := range 4 {
		h = append(h, toolTurn(i, strings.Repeat("old output\n", 100))...)
	}
	cur := toolTurn(9, strings.Repeat("new output\n", 100))[:3]
	cur = append(cur, toolTurn(10, strings.Repeat("newer output\n", 100))[1:3]...)
	h = append(h, cur...)
	l := ladder(nil)
	l.Limit = 2000
	r, err := l.Compact(t.Context(), h, costs(h), 300)
	if err != nil {
		t.Fatal(err)
	}
	got := r.History[len(r.History)-len(cur):]
	for i := range cur {
		if got[i].Content != cur[i].Content {
			t.Fatalf("message %d of the current turn changed to %.60q; it fits the limit and must stay whole", i, got[i].Content)
		}
	}
	if r.History[0].Content != TrimNote || len(r.History) != len(cur)+1 {
		t.Errorf("older turns not trimmed: %s", r)
	}
}

func TestCompactStopsWhenCancelled(t *testing.T) {
	var h []models.Message
	for i := range 10 {
		h = append(h, user(strings.Repeat("words ", 100)), answer(strings.Repeat("reply ", 100)))
		_ = i
	}
	ctx, cancel := context.WithCancel(t.Context())
	s := func(ctx context.Context, _, _ string, _ int) (string, error) {
		cancel()
		return "", ctx.Err()
	}
	if _, err := ladder(s).Compact(ctx, h, costs(h), 200); !errors.Is(err, context.Canceled) {
		t.Errorf("Compact = %v, want context.Canceled", err)
	}
}

func TestNothingToDo(t *testing.T) {
	h := []models.Message{user("hi"), answer("hello")}
	r, err := ladder(nil).Compact(t.Context(), h, costs(h), 1000)
	if err != nil || r.Freed() != 0 || r.String() != "nothing to compact" || len(r.History) != 2 {
		t.Errorf("Compact = %+v, %v", r, err)
	}
}
