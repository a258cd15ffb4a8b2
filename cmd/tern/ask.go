package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
)

// askOptions are tern ask's arguments and flags.
type askOptions struct {
	// prompt is the words given, or stdin's for "-".
	prompt string
	json   bool
	resume string
	// rag turns RAG on; plan asks for a plan (or, resumed, sends the
	// session's plan back); accept accepts the resumed session's plan.
	rag, plan, accept bool
}

func (a *app) askCommand() *cobra.Command {
	o := &askOptions{}
	cmd := &cobra.Command{
		Use:   `ask "PROMPT"`,
		Short: "Run one headless turn and stream the answer to stdout",
		Long: `Run one turn of the agent on PROMPT ("-" reads it from stdin) and stream the
answer to stdout. Tool calls and notices go to stderr. With --json, stdout
carries one JSON event per line instead (see README for the fields).

Ctrl+C cancels the turn cleanly (exit 130); what was said is kept in the
session, which 'tern ask --resume ID' continues.

With --plan the model may only read, and ends with a plan. Accept it with
'tern ask --resume ID --accept-plan' (tier 1 unlocks, or the --tier given,
and the plan stays pinned in the prompt as the goal), or send it back with
'tern ask --resume ID --plan "COMMENT"'.

Exit codes: 0 the model answered; 1 error; 2 usage error; 3 changes the
model tried were refused (rerun with --yes); 4 the turn stopped at
--max-turns; 5 the model got stuck; 130 cancelled.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.accept {
				return nil // the words are optional: what the user adds
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.prompt = strings.Join(args, " ")
			if o.accept {
				if o.plan {
					return exitCodeError{exitUsage, errors.New("--accept-plan and --plan exclude each other: accept the plan, or send it back with --plan")}
				}
				if o.resume == "" {
					return exitCodeError{exitUsage, errors.New("--accept-plan needs --resume ID: the session whose plan you accept")}
				}
				return runCommand(cmd.Context(), a, o, a.ask)
			}
			if o.prompt == "-" {
				data, err := io.ReadAll(a.stdin)
				if err != nil {
					return fmt.Errorf("read prompt from stdin: %w", err)
				}
				o.prompt = string(data)
			}
			if strings.TrimSpace(o.prompt) == "" {
				return exitCodeError{exitUsage, errors.New("the prompt is empty")}
			}
			return runCommand(cmd.Context(), a, o, a.ask)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print NDJSON events instead of text")
	cmd.Flags().StringVar(&o.resume, "resume", "", "continue the session with this ID (or unique prefix)")
	cmd.Flags().BoolVar(&o.rag, "rag", false, ragUsage)
	cmd.Flags().BoolVar(&o.plan, "plan", false, "plan mode: the model only reads and ends with a plan; with --resume, send the session's plan back with PROMPT as the comment")
	cmd.Flags().BoolVar(&o.accept, "accept-plan", false, "accept the plan of the --resume session: unlock tier 1 (or --tier), pin the plan as the goal and carry it out; PROMPT, if any, adds to it")
	return cmd
}

func (a *app) ask(ctx context.Context, o *askOptions) error {
	prompt, jsonOut := o.prompt, o.json
	ctx, stop := interruptible(ctx)
	defer stop()
	refused := &headless.Refusals{}
	r, err := a.startRun(ctx, runOptions{resume: o.resume, rag: o.rag, plan: o.plan,
		approver: headless.Approver{Yes: a.yes || a.yolo, Yolo: a.yolo, Refused: refused}})
	if err != nil {
		return err
	}
	defer r.Close()

	var out headless.Writer = headless.NewText(a.stdout, a.stderr, a.verbose)
	if jsonOut {
		out = headless.NewJSON(a.stdout)
	}
	var done agent.Done
	out = headless.Tap(out, &done)
	if r.back.Why != "requested" {
		out.Write(agent.Notice{Level: agent.Info, Text: fmt.Sprintf("using %s (%s; choose with --model)", r.back.Info.Name, r.back.Why)})
	}
	for _, n := range r.notices {
		out.Write(agent.Notice{Level: agent.Info, Text: n})
	}
	planned := false
	switch {
	case o.accept:
		err = r.acceptPlan(ctx, prompt, out.Write)
	case o.plan && r.agent.ProposedPlan() != "":
		planned = true
		err = r.agent.RevisePlan(ctx, prompt, out.Write)
	default:
		planned = o.plan
		err = r.agent.Run(ctx, prompt, out.Write)
	}
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	if errors.Is(err, agent.ErrNoPlan) {
		return fmt.Errorf("session %s has no plan to accept: ask for one with tern ask --plan", r.sess.ID)
	}
	if planned && err == nil && r.agent.ProposedPlan() != "" && !jsonOut {
		fmt.Fprintf(a.stderr, "tern: plan ready. Accept it with `tern ask --resume %s --accept-plan` (add --tier 2 to allow commands), or send it back with `tern ask --resume %s --plan \"COMMENT\"`\n", r.sess.ID, r.sess.ID)
	}
	if errors.Is(err, context.Canceled) {
		return exitCodeError{code: exitCanceled, err: fmt.Errorf("cancelled; the conversation so far is saved in session %s", r.sess.ID)}
	}
	if err != nil {
		return r.back.Explain(err)
	}
	return turnOutcome(done, refused, r.sess.ID)
}

// turnOutcome is the exit of a turn that ran to its end: nil when the
// model answered and nothing it tried was refused, else headless.Result's
// line with the exit code of its outcome, so that a script can tell.
func turnOutcome(done agent.Done, refused *headless.Refusals, session string) error {
	o, err := headless.Result(done, refused, session)
	switch o {
	case headless.Refused:
		return exitCodeError{exitDenied, err}
	case headless.MaxTurns:
		return exitCodeError{exitMaxTurns, err}
	case headless.Stuck:
		return exitCodeError{exitStuck, err}
	}
	return nil
}

// ragUsage describes --rag.
const ragUsage = "add the repository code that matches each prompt to it (RAG; needs tern index; default: the config's rag)"
