package headless

import (
	"fmt"

	"github.com/ternhq/tern/agent"
)

// Outcome is how a turn that ran to its end went, told apart so that a
// script can tell: package main maps each to an exit code.
type Outcome int

const (
	// Answered: the model answered and nothing it tried was refused.
	Answered Outcome = iota
	// Refused: changes the model tried were refused (no --yes, or a
	// destructive command without --yolo).
	Refused
	// MaxTurns: the turn stopped at the request limit (--max-turns).
	MaxTurns
	// Stuck: the turn stopped because the model kept looping.
	Stuck
)

// Result is the outcome of a turn that ran to its end, from its Done and
// what refused counted (nil counts nothing): Answered with a nil error,
// else the outcome, checked in the order MaxTurns, Stuck, Refused, with an
// error whose text says what did not happen and how to go on in session.
func Result(done agent.Done, refused *Refusals, session string) (Outcome, error) {
	switch done.Reason {
	case agent.DoneMaxTurns:
		return MaxTurns, fmt.Errorf("the turn ended at the request limit, not with an answer; continue with tern ask --resume %s", session)
	case agent.DoneStuck:
		return Stuck, fmt.Errorf("the turn ended stuck, not with an answer; continue with tern ask --resume %s", session)
	}
	if refused == nil {
		return Answered, nil
	}
	if n, what := refused.summary(); n > 0 {
		return Refused, fmt.Errorf("%s refused and not made, whatever the answer says: %s", what, refused.howToAllow())
	}
	return Answered, nil
}
