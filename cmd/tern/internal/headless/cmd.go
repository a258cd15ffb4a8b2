package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Options are tern ask's arguments and flags.
type Options struct {
	// Prompt is the words given, or stdin's for "-".
	Prompt string
	JSON   bool
	Resume string
	// Continue continues the workspace's latest session (-c).
	Continue bool
	// RAG turns RAG on; Plan asks for a plan (or, resumed, sends the
	// session's plan back); Accept accepts the resumed session's plan.
	RAG, Plan, Accept bool
	// Escalate runs the turn on escalate_model.
	Escalate bool
}

// RAGUsage describes --rag, which the TUI takes too.
const RAGUsage = "add the repository code that matches each prompt to it (RAG; needs tern index; default: the config's rag)"

// NewCmd returns the tern ask command. It reads the prompt "-" from
// stdin, hands the options it parsed to run, and wraps with usage a
// mistake in how it was called (an empty prompt, --accept-plan without
// --resume), which package main reports with exit 2.
func NewCmd(stdin io.Reader, run func(context.Context, *Options) error, usage func(error) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   `ask "PROMPT"`,
		Short: "Run one headless turn and stream the answer to stdout",
		Long: `Run one turn of the agent on PROMPT ("-" reads it from stdin) and stream the
answer to stdout. Tool calls and notices go to stderr. With --json, stdout
carries one JSON event per line instead (docs/scripting.md lists them).
@path in PROMPT attaches that file or directory listing to it.

Ctrl+C cancels the turn cleanly (exit 130); what was said is kept in the
session, which 'tern ask --resume ID' continues ('tern ask -c' continues
the latest session of the workspace).

With --escalate the turn runs on escalate_model, the larger model a stuck
turn moves to by itself: 'tern ask --resume ID --escalate "try again"' hands
a session that stopped stuck (exit 5) to it. The session's model takes the
next turn again.

With --plan the model may only read, and ends with a plan. Accept it with
'tern ask --resume ID --accept-plan' (tier 1 unlocks, or the --tier given,
and the plan stays pinned in the prompt as the goal), or send it back with
'tern ask --resume ID --plan "COMMENT"'.

Exit codes: 0 the model answered; 1 error; 2 usage error; 3 changes the
model tried were refused (rerun with --yes); 4 the turn stopped at
--max-turns; 5 the model got stuck; 130 cancelled.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Accept {
				return nil // the words are optional: what the user adds
			}
			if len(args) == 0 {
				return usage(errors.New(`no prompt: tern ask "PROMPT" (or tern ask - to read it from stdin)`))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Prompt = strings.Join(args, " ")
			if o.Continue && o.Resume != "" {
				return usage(errors.New("--continue and --resume exclude each other: -c continues the latest session, --resume ID the one named"))
			}
			if o.Accept {
				if o.Plan {
					return usage(errors.New("--accept-plan and --plan exclude each other: accept the plan, or send it back with --plan"))
				}
				if o.Resume == "" && !o.Continue {
					return usage(errors.New("--accept-plan needs --resume ID (or -c, the latest session): the session whose plan you accept"))
				}
				return run(cmd.Context(), o)
			}
			if o.Prompt == "-" {
				data, err := io.ReadAll(stdin)
				if err != nil {
					return fmt.Errorf("read prompt from stdin: %w", err)
				}
				o.Prompt = string(data)
			}
			if strings.TrimSpace(o.Prompt) == "" {
				return usage(errors.New("the prompt is empty"))
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print NDJSON events instead of text")
	cmd.Flags().StringVar(&o.Resume, "resume", "", "continue the session with this ID (or unique prefix)")
	cmd.Flags().BoolVarP(&o.Continue, "continue", "c", false, "continue the latest session of this workspace with a conversation (a new one when there is none)")
	cmd.Flags().BoolVar(&o.RAG, "rag", false, RAGUsage)
	cmd.Flags().BoolVar(&o.Plan, "plan", false, "plan mode: the model only reads and ends with a plan; with --resume, send the session's plan back with PROMPT as the comment")
	cmd.Flags().BoolVar(&o.Escalate, "escalate", false, "run the turn on escalate_model, the larger model (with --resume: take over a session whose model got stuck)")
	cmd.Flags().BoolVar(&o.Accept, "accept-plan", false, "accept the plan of the --resume session: unlock tier 1 (or --tier), pin the plan as the goal and carry it out; PROMPT, if any, adds to it")
	return cmd
}
