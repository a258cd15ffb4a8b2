package headless

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ternhq/tern/agent"
)

// Turn is the kind of turn tern ask runs.
type Turn int

const (
	// Ask runs the prompt (in plan mode with --plan).
	Ask Turn = iota
	// Revise sends the session's plan back with the prompt as the
	// comment (--plan on a session with a plan).
	Revise
	// Accept accepts the session's plan and carries it out; the prompt,
	// if any, adds to it (--accept-plan).
	Accept
)

// Session is the session tern ask runs its turn in, as package main
// opens it.
type Session interface {
	// Turn runs one turn on prompt, sending its events to onEvent. Its
	// error is worded for the user; a cancel and agent.ErrNoPlan come
	// back as they are.
	Turn(ctx context.Context, turn Turn, prompt string, onEvent func(agent.Event)) error
	// ProposedPlan is the plan the session's model last proposed, "" when
	// none is waiting.
	ProposedPlan() string
	Close() error
}

// Info is what an open session says of itself.
type Info struct {
	// ID names the session, for --resume.
	ID string
	// Model is the model it runs; Why says how it was chosen
	// ("requested" when the user named it).
	Model, Why string
	// Notices are what the user should know before the turn (a lowered
	// window, a tool-mode fallback, …).
	Notices []string
}

// Env is what Run works with.
type Env struct {
	// Out gets the answer (or the NDJSON events); Err the rest.
	Out, Err io.Writer
	// Verbose shows thinking and a closing line of counts.
	Verbose bool
	// Yes and Yolo are the approval policy (--yes, --yolo).
	Yes, Yolo bool
	// Open opens the session of o with approver answering its
	// approvals.
	Open func(ctx context.Context, o *Options, approver agent.Approver) (Session, Info, error)
}

// CanceledError is Run's error when the turn was cancelled (Ctrl+C):
// what was said is kept in the session.
type CanceledError struct{ Session string }

func (e CanceledError) Error() string {
	return fmt.Sprintf("cancelled; the conversation so far is saved in session %s", e.Session)
}

// Unwrap makes a CanceledError a context.Canceled.
func (CanceledError) Unwrap() error { return context.Canceled }

// OutcomeError is Run's error when the turn ran to its end without its
// work done: Outcome says how (Refused, MaxTurns, Stuck), Err what did
// not happen, in words.
type OutcomeError struct {
	Outcome Outcome
	Err     error
}

func (e OutcomeError) Error() string { return e.Err.Error() }
func (e OutcomeError) Unwrap() error { return e.Err }

// Run is tern ask: it opens the session with the --yes / --yolo policy,
// says the notices, runs the turn o asks for while writing its events as
// text or NDJSON, points at the next step of a plan, and says how the
// turn went: nil when the model answered and nothing it tried was
// refused, a CanceledError, an OutcomeError, or the failure.
//
// With --json a done event always comes last: when the turn failed
// before the agent could say so (the server unreachable, no such model,
// no plan to accept), Run writes one with the error.
func Run(ctx context.Context, env Env, o *Options) (err error) {
	var done agent.Done
	if o.JSON {
		defer func() {
			if err != nil && done.Reason == "" {
				done = agent.Done{Reason: agent.DoneError, Error: err.Error()}
				if errors.Is(err, context.Canceled) {
					done.Reason = agent.DoneCanceled
				}
				NewJSON(env.Out).Write(done)
			}
		}()
	}
	refused := &Refusals{}
	s, info, err := env.Open(ctx, o, Approver{Yes: env.Yes || env.Yolo, Yolo: env.Yolo, Refused: refused})
	if err != nil {
		return err
	}
	defer s.Close()

	var out Writer = NewText(env.Out, env.Err, env.Verbose)
	if o.JSON {
		out = NewJSON(env.Out)
	}
	out = Tap(out, &done)
	if info.Why != "requested" {
		out.Write(agent.Notice{Level: agent.Info, Text: fmt.Sprintf("using %s (%s; choose with --model)", info.Model, info.Why)})
	}
	for _, n := range info.Notices {
		out.Write(agent.Notice{Level: agent.Info, Text: n})
	}
	planned := false
	switch {
	case o.Accept:
		err = s.Turn(ctx, Accept, o.Prompt, out.Write)
	case o.Plan && s.ProposedPlan() != "":
		planned = true
		err = s.Turn(ctx, Revise, o.Prompt, out.Write)
	default:
		planned = o.Plan
		err = s.Turn(ctx, Ask, o.Prompt, out.Write)
	}
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	if errors.Is(err, agent.ErrNoPlan) {
		return fmt.Errorf("session %s has no plan to accept: ask for one with tern ask --plan", info.ID)
	}
	if planned && err == nil && s.ProposedPlan() != "" && !o.JSON {
		fmt.Fprintf(env.Err, "tern: plan ready. Accept it with `tern ask --resume %s --accept-plan` (add --tier 2 to allow commands), or send it back with `tern ask --resume %s --plan \"COMMENT\"`\n", info.ID, info.ID)
	}
	if errors.Is(err, context.Canceled) {
		return CanceledError{Session: info.ID}
	}
	if err != nil {
		return err
	}
	if outcome, err := Result(done, refused, info.ID); outcome != Answered {
		return OutcomeError{Outcome: outcome, Err: err}
	}
	return nil
}
