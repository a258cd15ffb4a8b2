package disclosure

import (
	"encoding/json"
	"fmt"
)

// State is what a session keeps of its tools: the unlocked tier and the
// visible tools in the order they became visible, so that a resumed session
// sends the same prefix.
type State struct {
	Tier  Tier     `json:"tier"`
	Tools []string `json:"tools"`
}

// String encodes the state for the session store.
func (s State) String() string {
	b, _ := json.Marshal(s) // a struct of an int and strings always encodes
	return string(b)
}

// ParseState decodes a state that String encoded.
func ParseState(text string) (State, error) {
	var s State
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return State{}, fmt.Errorf("tool state %q: %w", text, err)
	}
	if !s.Tier.Valid() {
		return State{}, fmt.Errorf("tool state: tier %d is not a tier", s.Tier)
	}
	return s, nil
}
