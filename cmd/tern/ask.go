package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
)

// askCommand is tern ask, one headless turn in a session opened as the
// TUI opens its sessions.
func (a *app) askCommand() *cobra.Command {
	return headless.NewCmd(a.stdin, func(ctx context.Context, o *headless.Options) error {
		return runCommand(ctx, a, o, a.ask)
	}, func(err error) error { return exitCodeError{exitUsage, err} })
}

func (a *app) ask(ctx context.Context, o *headless.Options) error {
	if o.Accept && a.cmd.PersistentFlags().Changed("tier") && a.tier < 1 {
		// Accepting carries the plan out, with edits: tier 0 would have
		// been raised to 1 without a word.
		return exitCodeError{exitUsage, fmt.Errorf("--accept-plan carries the plan out, which needs tier 1 (edit) or more, not --tier %d; leave --tier out for tier 1", a.tier)}
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	err := headless.Run(ctx, headless.Env{Out: a.stdout, Err: a.stderr, Verbose: a.verbose, Yes: a.yes, Yolo: a.yolo, Open: a.openAsk}, o)
	var canceled headless.CanceledError
	var outcome headless.OutcomeError
	switch {
	case errors.As(err, &canceled):
		return exitCodeError{code: exitCanceled, err: canceled}
	case errors.As(err, &outcome):
		return exitCodeError{outcomeExit(outcome.Outcome), outcome.Err}
	}
	return err
}

// outcomeExit is the exit code of a turn that ran to its end without its
// work done, so that a script can tell.
func outcomeExit(o headless.Outcome) int {
	switch o {
	case headless.Refused:
		return exitDenied
	case headless.MaxTurns:
		return exitMaxTurns
	case headless.Stuck:
		return exitStuck
	}
	return exitError
}

// openAsk opens tern ask's session: resumed or new, with RAG or a plan
// as asked.
func (a *app) openAsk(ctx context.Context, o *headless.Options, approver agent.Approver) (headless.Session, headless.Info, error) {
	r, err := a.startRun(ctx, runner.Options{Resume: o.Resume, Continue: o.Continue, RAG: o.RAG, Plan: o.Plan, Escalate: o.Escalate, Approver: approver})
	if err != nil {
		return nil, headless.Info{}, err
	}
	return askSession{r}, headless.Info{ID: r.SessionID(), Model: r.Conn().Info.Name, Why: r.Conn().Why, Notices: r.Notices()}, nil
}

// askSession is a run as tern ask drives it.
type askSession struct{ r *runner.Run }

// Turn runs the turn asked for and words its error for the user.
func (s askSession) Turn(ctx context.Context, turn headless.Turn, prompt string, onEvent func(agent.Event)) error {
	var err error
	switch turn {
	case headless.Accept:
		err = s.r.AcceptPlan(ctx, prompt, onEvent)
	case headless.Revise:
		err = s.r.Agent().RevisePlan(ctx, prompt, onEvent)
	default:
		err = s.r.Agent().Run(ctx, prompt, onEvent)
	}
	if err != nil {
		return s.r.Conn().Explain(err)
	}
	return nil
}

func (s askSession) ProposedPlan() string { return s.r.Agent().ProposedPlan() }
func (s askSession) Close() error         { return s.r.Close() }
