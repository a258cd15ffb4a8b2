package budget

import "github.com/ternhq/tern/models"

// messageOverhead approximates the tokens a chat template spends around one
// message (role markers, separators).
const messageOverhead = 4

// MessageTokens estimates the tokens msg costs in a prompt. Thinking is not
// counted: tern does not send earlier thinking back to the model.
func (c *Counter) MessageTokens(m models.Message) int {
	n := messageOverhead + c.Count(m.Content)
	for _, tc := range m.ToolCalls {
		n += messageOverhead + c.Count(tc.Name) + c.Count(string(tc.Arguments))
	}
	return n
}

// MessageBound is an upper bound of MessageTokens(m) that needs no
// encoder (see Bound).
func (c *Counter) MessageBound(m models.Message) int {
	n := messageOverhead + Bound(m.Content)
	for _, tc := range m.ToolCalls {
		n += messageOverhead + Bound(tc.Name) + Bound(string(tc.Arguments))
	}
	return n
}

// selection is what fit chose: history[user] when withUser, then
// history[start:].
type selection struct {
	user     int // the current turn's user message, or -1
	withUser bool
	start    int
	cost     int
}

func (s selection) empty() bool { return s.start < 0 }

// hasUser reports whether the selection holds the current turn's user
// message (or there is none to hold).
func (s selection) hasUser() bool {
	return s.user < 0 || s.withUser || s.start <= s.user
}

// currentUser returns the index of the last user message, or -1.
func currentUser(history []models.Message) int {
	for u := len(history) - 1; u >= 0; u-- {
		if history[u].Role == models.RoleUser {
			return u
		}
	}
	return -1
}

func fit(history []models.Message, costs []int, available int) selection {
	if len(history) == 0 {
		return selection{user: -1, start: -1}
	}
	u := currentUser(history)
	first := max(u, 0) // without a user message the whole history is one turn
	turn := 0
	for i := first; i < len(history); i++ {
		turn += costs[i]
	}
	if turn <= available {
		start, total, keptCost := first, turn, turn
		for i := first - 1; i >= 0; i-- {
			total += costs[i]
			if total > available {
				break
			}
			if history[i].Role == models.RoleUser {
				start, keptCost = i, total
			}
		}
		return selection{user: u, start: start, cost: keptCost}
	}

	// The current turn does not fit: keep its question, then the newest
	// steps that fit after it.
	last := len(history) - 1
	left := available
	if u >= 0 {
		left -= costs[u]
	}
	start, steps := last, costs[last]
	for i, total := last-1, costs[last]; i > first; i-- {
		total += costs[i]
		if total > left {
			break
		}
		if history[i].Role == models.RoleAssistant {
			start, steps = i, total
		}
	}
	if start == last && history[last].Role != models.RoleAssistant && last != u {
		// Not even one whole step fits: keep the newest step anyway (a tool
		// result never goes without its call), or the last message alone
		// when it has no step.
		start, steps = last, 0
		for i := last; i > first; i-- {
			if history[i].Role == models.RoleAssistant {
				start = i
				break
			}
		}
		for i := start; i <= last; i++ {
			steps += costs[i]
		}
		return selection{user: u, start: start, cost: steps}
	}
	s := selection{user: u, start: start, cost: steps}
	if u >= 0 && u < start && costs[u]+steps <= available {
		s.withUser, s.cost = true, costs[u]+steps
	}
	return s
}

// FitIndices chooses the part of history to send when only available tokens are
// left for it; costs[i] is the token cost of history[i]. It returns the
// indices of the messages kept, in order.
//
// The current turn (from the last user message on) is kept whole when it
// fits, and earlier turns are added back whole, newest first, while they
// fit. When the current turn alone is too big, its user message is kept and
// the newest of its steps that fit follow it; a step starts at an assistant
// message, so a tool result never loses the call it answers. The newest
// step (or the last message, when it is not part of one) is always kept,
// whatever it costs: a caller that cannot afford even that must shorten it
// first (Assemble does).
func FitIndices(history []models.Message, costs []int, available int) []int {
	s := fit(history, costs, available)
	if s.empty() {
		return nil
	}
	idx := make([]int, 0, 1+len(history)-s.start)
	if s.withUser {
		idx = append(idx, s.user)
	}
	for i := s.start; i < len(history); i++ {
		idx = append(idx, i)
	}
	return idx
}
