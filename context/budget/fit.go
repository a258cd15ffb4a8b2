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

// Fit chooses the part of history to send when only available tokens are
// left for it; costs[i] is the token cost of history[i]. It returns the
// messages kept, in order, and their total cost.
//
// The current turn (from the last user message on) is kept whole when it
// fits, and earlier turns are added back whole, newest first, while they
// fit. When the current turn alone is too big, its user message is kept and
// the newest of its steps that fit follow it; a step starts at an assistant
// message, so a tool result never loses the call it answers. The last
// message is always kept, whatever it costs: a caller that cannot afford
// even that must shorten it first.
func Fit(history []models.Message, costs []int, available int) (kept []models.Message, cost int) {
	if len(history) == 0 {
		return nil, 0
	}
	u := len(history) - 1
	for u > 0 && history[u].Role != models.RoleUser {
		u--
	}
	turn := 0
	for i := u; i < len(history); i++ {
		turn += costs[i]
	}
	if turn <= available {
		start, total, keptCost := u, turn, turn
		for i := u - 1; i >= 0; i-- {
			total += costs[i]
			if total > available {
				break
			}
			if history[i].Role == models.RoleUser {
				start, keptCost = i, total
			}
		}
		return history[start:], keptCost
	}

	// The current turn does not fit: keep its question, then the newest
	// steps that fit after it.
	last := len(history) - 1
	left := available - costs[u]
	start, steps := last, costs[last]
	for i, total := last-1, costs[last]; i > u; i-- {
		total += costs[i]
		if total > left {
			break
		}
		if history[i].Role == models.RoleAssistant {
			start, steps = i, total
		}
	}
	if start == last && history[last].Role != models.RoleAssistant {
		// Not even one whole step fits; keep the last message alone.
		return history[last:], costs[last]
	}
	kept = make([]models.Message, 0, 1+len(history)-start)
	if costs[u]+steps <= available {
		kept = append(kept, history[u])
		cost = costs[u]
	}
	kept = append(kept, history[start:]...)
	return kept, cost + steps
}
