package disclosure

// Counter counts tokens; *budget.Counter satisfies it.
type Counter interface {
	Count(text string) int
}

// ToolCost is what one tool's schema costs in every request that carries it.
type ToolCost struct {
	Name string
	Tier Tier
	// Tokens counts the tool's wire form, as the agent counts its prefix.
	Tokens int
	// Visible tells whether the tool is in the current list.
	Visible bool
}

// Costs returns the token cost of every registered tool, tier by tier in
// their fixed order.
func (s *Set) Costs(c Counter) []ToolCost {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ToolCost
	for tier, list := range s.tiers {
		for _, t := range list {
			spec := t.Spec()
			out = append(out, ToolCost{Name: spec.Name, Tier: Tier(tier), Tokens: c.Count(string(spec.WireJSON())), Visible: s.isVisible(spec.Name)})
		}
	}
	return out
}

// TierTokens sums costs by tier: what each tier adds to a request.
func TierTokens(costs []ToolCost) [NumTiers]int {
	var sums [NumTiers]int
	for _, c := range costs {
		if c.Tier.Valid() {
			sums[c.Tier] += c.Tokens
		}
	}
	return sums
}
