// Package compact shrinks a conversation that has outgrown its share of the
// context window, in the order that loses least (DESIGN "Compaction
// ladder"): (1) old tool outputs become one-line stubs, the newest kept;
// (2) if that is not enough, the oldest turns are summarised by the model
// into a structured note (goal, files, decisions, open problems, next
// step); (3) if the summary fails, is unusable or does not shrink the
// history, the oldest messages are dropped mechanically. The newest turn is
// never summarised away, and a tool result never loses its call.
//
// compact works on messages and their token costs; the model call of step
// 2 is a function the caller passes in. It imports models, context/budget
// and prompts; it must not import agent, tools, session or a model backend.
package compact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
)

// The markers compaction writes into the history. They start the messages
// it makes, so a later compaction knows them.
const (
	// SummaryPrefix starts the note that replaces summarised messages.
	SummaryPrefix = "Summary of the earlier conversation:\n\n"
	// TrimNote stands where messages were dropped without a summary.
	TrimNote = "(Earlier messages of this conversation were removed to fit the context window.)"
	// stubPrefix starts a pruned tool output.
	stubPrefix = "[output pruned"
)

// ErrBadSummary marks a summary that was empty, was not notes, or repeated
// itself; compaction then trims instead.
var ErrBadSummary = errors.New("unusable summary")

// Summarizer asks the model for the notes: system and user are the
// rendered summary prompt, maxTokens caps the reply.
type Summarizer func(ctx context.Context, system, user string, maxTokens int) (string, error)

// Ladder holds what compaction needs. Token figures are tern's own counts,
// in the same units as Cost.
type Ladder struct {
	// Cost counts a message as it is sent.
	Cost func(models.Message) int
	// Count counts a text; it is used to shorten.
	Count func(string) int
	// Summarize writes the notes of step 2; nil skips the step.
	Summarize Summarizer
	// SummaryMax caps the summary note.
	SummaryMax int
	// TranscriptMax caps the transcript the model is asked to summarise.
	TranscriptMax int
	// Limit is the most the history may cost for a request to fit. The
	// current turn is cut only beyond it, so that compaction does not
	// undo the work of the turn in progress; 0 means the target.
	Limit int
	// Thorough prunes every old tool output and summarises every turn
	// before the current one, whatever the target, as /compact asks;
	// trimming still stops at the target.
	Thorough bool
}

// Result is a compacted history and what was done to it.
type Result struct {
	History []models.Message
	// Costs[i] is Cost(History[i]).
	Costs []int
	// Before and After are the history's total cost.
	Before, After int
	// Pruned counts tool outputs replaced by stubs, Summarized the messages
	// folded into the summary, Trimmed those dropped mechanically.
	Pruned, Summarized, Trimmed int
	// SummaryErr says why step 2 ran but its summary was not used.
	SummaryErr error
}

// Freed is the cost compaction saved.
func (r Result) Freed() int { return r.Before - r.After }

// String says what was done, for a notice: "pruned 3 tool outputs,
// summarised 12 messages".
func (r Result) String() string {
	var parts []string
	if r.Pruned > 0 {
		parts = append(parts, fmt.Sprintf("pruned %d tool output%s", r.Pruned, plural(r.Pruned)))
	}
	if r.Summarized > 0 {
		parts = append(parts, fmt.Sprintf("summarised %d message%s", r.Summarized, plural(r.Summarized)))
	}
	if r.Trimmed > 0 {
		parts = append(parts, fmt.Sprintf("dropped %d old message%s", r.Trimmed, plural(r.Trimmed)))
	}
	if len(parts) == 0 {
		return "nothing to compact"
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Compact brings history (costs[i] the cost of history[i]) down to target
// when it can, climbing the ladder only as far as needed. It returns an
// error only when ctx ends; a failed summary is reported in SummaryErr and
// the history trimmed instead.
func (l Ladder) Compact(ctx context.Context, history []models.Message, costs []int, target int) (Result, error) {
	h := &state{msgs: clone(history), costs: clone(costs)}
	r := Result{Before: h.total()}
	limit := max(l.Limit, target)
	over := func() bool { return h.total() > target || l.Thorough }
	if over() {
		r.Pruned = l.prune(h, target, max(currentUser(h.msgs), 0))
	}
	if over() && l.Summarize != nil {
		n, err := l.summarize(ctx, h, target)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, fmt.Errorf("summarise history: %w", ctxErr)
		}
		r.Summarized, r.SummaryErr = n, err
	}
	if h.total() > limit {
		// The current turn itself is too large: its older outputs go too.
		r.Pruned += l.prune(h, limit, len(h.msgs))
	}
	if h.total() > target {
		r.Trimmed = l.trim(h, target, limit)
	}
	r.History, r.Costs, r.After = h.msgs, h.costs, h.total()
	return r, nil
}

// state is a history being compacted, with its costs.
type state struct {
	msgs  []models.Message
	costs []int
}

func (h *state) total() int {
	n := 0
	for _, c := range h.costs {
		n += c
	}
	return n
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

// currentUser is the index of the newest user message that is not a
// compaction marker, or -1.
func currentUser(msgs []models.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == models.RoleUser && !isMarker(msgs[i]) {
			return i
		}
	}
	return -1
}

func isMarker(m models.Message) bool {
	return m.Role == models.RoleUser && (strings.HasPrefix(m.Content, SummaryPrefix) || m.Content == TrimNote)
}

// prune replaces the tool outputs before end with stubs, oldest first,
// until the history costs at most target. The outputs of the newest step,
// which the model has not answered yet, are always kept.
func (l Ladder) prune(h *state, target, end int) int {
	newest := len(h.msgs) // the step whose outputs await an answer
	for i := len(h.msgs) - 1; i >= 0; i-- {
		if h.msgs[i].Role == models.RoleAssistant {
			if len(h.msgs[i].ToolCalls) > 0 {
				newest = i
			}
			break
		}
	}
	calls := map[string]models.ToolCall{}
	pruned, total := 0, h.total()
	for i := 0; i < min(newest, end) && (total > target || l.Thorough); i++ {
		m := h.msgs[i]
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
		if m.Role != models.RoleTool || strings.HasPrefix(m.Content, stubPrefix) {
			continue
		}
		stub := m
		stub.Content = stubText(m, calls[m.ToolCallID], h.costs[i])
		if c := l.Cost(stub); c < h.costs[i] {
			total += c - h.costs[i]
			h.msgs[i], h.costs[i] = stub, c
			pruned++
		}
	}
	return pruned
}

// stubText is the one line left of a pruned tool output: which call it
// answered, how big it was, and that the call can be made again.
func stubText(m models.Message, call models.ToolCall, cost int) string {
	name := m.ToolName
	if name == "" {
		name = call.Name
	}
	args := strings.Join(strings.Fields(string(call.Arguments)), " ")
	if len(args) > 80 {
		args = args[:77] + "..."
	}
	if args != "" {
		args = " " + args
	}
	return fmt.Sprintf("%s to save context: %s%s gave about %d tokens; call it again if you need them]", stubPrefix, name, args, cost)
}

// summarize folds the oldest whole turns into one note, keeping as many
// recent turns as fit next to it. It reports how many messages it folded,
// or why it did not.
func (l Ladder) summarize(ctx context.Context, h *state, target int) (int, error) {
	cu := currentUser(h.msgs)
	if cu <= 0 {
		return 0, nil // nothing older than the current turn
	}
	// The split is a turn start: the earliest whose turns, with the note,
	// fit the target; else the current turn.
	k, tail := cu, 0
	for i := len(h.msgs) - 1; i >= 0; i-- {
		tail += h.costs[i]
		if i > cu || h.msgs[i].Role != models.RoleUser || isMarker(h.msgs[i]) {
			continue
		}
		if i == 0 || l.Thorough || tail+l.SummaryMax > target {
			break
		}
		k = i
	}
	older := h.msgs[:k]
	olderCost := 0
	for _, c := range h.costs[:k] {
		olderCost += c
	}
	if len(older) == 1 && isMarker(older[0]) || olderCost < l.SummaryMax/2 {
		return 0, nil // too little to be worth a model call
	}
	system, user, err := prompts.RenderSummary(prompts.Summary{
		Transcript: Transcript(older, l.Count, l.TranscriptMax),
		MaxWords:   max(l.SummaryMax*3/4, 30),
	})
	if err != nil {
		return 0, err
	}
	text, err := l.Summarize(ctx, system, user, l.SummaryMax)
	if err != nil {
		return 0, fmt.Errorf("summary request: %w", err)
	}
	notes, err := Clean(text)
	if err != nil {
		return 0, err
	}
	note := models.Message{Role: models.RoleUser, Content: SummaryPrefix + notes}
	if l.Cost(note) > l.SummaryMax {
		note.Content = SummaryPrefix + budget.Shorten(l.Count, notes, max(l.SummaryMax-l.Cost(models.Message{Role: models.RoleUser, Content: SummaryPrefix}), 0))
	}
	cost := l.Cost(note)
	if cost >= olderCost {
		return 0, fmt.Errorf("%w: the summary (%d tokens) is no smaller than what it replaces (%d)", ErrBadSummary, cost, olderCost)
	}
	h.msgs = append([]models.Message{note}, h.msgs[k:]...)
	h.costs = append([]int{cost}, h.costs[k:]...)
	return k, nil
}

// trim drops the oldest messages until the history costs at most target:
// whole turns first, then, only when the current turn alone is over limit,
// its oldest steps. A summary at the start is kept, the current question
// always, and a note says messages were removed.
func (l Ladder) trim(h *state, target, limit int) int {
	var head []models.Message
	var headCosts []int
	if len(h.msgs) > 0 && strings.HasPrefix(h.msgs[0].Content, SummaryPrefix) {
		head, headCosts = h.msgs[:1], h.costs[:1]
	}
	rest, restCosts := h.msgs[len(head):], h.costs[len(head):]
	if len(rest) > 0 && rest[0].Content == TrimNote {
		rest, restCosts = rest[1:], restCosts[1:]
	}
	note := models.Message{Role: models.RoleUser, Content: TrimNote}
	noteCost := l.Cost(note)
	headCost := 0
	for _, c := range headCosts {
		headCost += c
	}
	avail := target - headCost - noteCost
	turn := 0
	for i := max(currentUser(rest), 0); i < len(rest); i++ {
		turn += restCosts[i]
	}
	if turn > avail {
		avail = min(turn, limit-headCost-noteCost)
	}
	idx := budget.FitIndices(rest, restCosts, avail)
	if cu := currentUser(rest); cu >= 0 && !slices.Contains(idx, cu) {
		idx = append([]int{cu}, idx...) // Fit left it out: it comes before what was kept
	}
	dropped := len(rest) - len(idx)
	msgs, costs := clone(head), clone(headCosts)
	if dropped > 0 {
		msgs, costs = append(msgs, note), append(costs, noteCost)
	}
	for _, i := range idx {
		msgs, costs = append(msgs, rest[i]), append(costs, restCosts[i])
	}
	trimmed := &state{msgs, costs}
	if trimmed.total() >= h.total() {
		return 0 // what would go is smaller than the note saying so
	}
	h.msgs, h.costs = msgs, costs
	return dropped
}
