package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/tools"
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
	refused := &refusals{}
	r, err := a.startRun(ctx, runOptions{resume: o.resume, rag: o.rag, plan: o.plan,
		approver: headlessApprover{yes: a.yes || a.yolo, yolo: a.yolo, refused: refused}})
	if err != nil {
		return err
	}
	defer r.Close()

	var out eventWriter = newTextWriter(a.stdout, a.stderr, a.verbose)
	if jsonOut {
		out = newJSONWriter(a.stdout)
	}
	var done agent.Done
	out = doneTap{out, &done}
	if r.back.why != "requested" {
		out.Write(agent.Notice{Level: agent.Info, Text: fmt.Sprintf("using %s (%s; choose with --model)", r.back.info.Name, r.back.why)})
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
		return r.back.explain(err)
	}
	return turnOutcome(done, refused, r.sess.ID)
}

// turnOutcome is the exit of a turn that ran to its end: nil when the
// model answered and nothing it tried was refused, else an exit code
// (exitMaxTurns, exitStuck, exitDenied, in that order) with a line that
// says what did not happen, so that a script can tell.
func turnOutcome(done agent.Done, refused *refusals, session string) error {
	switch done.Reason {
	case agent.DoneMaxTurns:
		return exitCodeError{exitMaxTurns, fmt.Errorf("the turn ended at the request limit, not with an answer; continue with tern ask --resume %s", session)}
	case agent.DoneStuck:
		return exitCodeError{exitStuck, fmt.Errorf("the turn ended stuck, not with an answer; continue with tern ask --resume %s", session)}
	}
	if n, what := refused.summary(); n > 0 {
		return exitCodeError{exitDenied, fmt.Errorf("%s refused and not made, whatever the answer says: %s", what, refused.howToAllow())}
	}
	return nil
}

// doneTap passes events on and keeps the turn's Done.
type doneTap struct {
	eventWriter
	done *agent.Done
}

func (d doneTap) Write(e agent.Event) {
	if v, ok := e.(agent.Done); ok {
		*d.done = v
	}
	d.eventWriter.Write(e)
}

// refusals counts the calls a headless approver refused.
type refusals struct {
	mu      sync.Mutex
	byKind  map[string]int
	ordered []string
}

func (r *refusals) add(kind string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKind == nil {
		r.byKind = map[string]int{}
	}
	if r.byKind[kind] == 0 {
		r.ordered = append(r.ordered, kind)
	}
	r.byKind[kind]++
}

// summary is the number of refused calls and a phrase for them: "2 file
// changes and 1 command were".
func (r *refusals) summary() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	n := 0
	for _, k := range r.ordered {
		c := r.byKind[k]
		n += c
		parts = append(parts, plural(c, k, k+"s"))
	}
	if n == 0 {
		return 0, ""
	}
	return n, words.OrList(parts) + map[bool]string{true: " was", false: " were"}[n == 1]
}

// howToAllow says which flag allows what was refused.
func (r *refusals) howToAllow() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var plain []string
	for _, k := range r.ordered {
		if k != destructiveKind {
			plain = append(plain, k+"s")
		}
	}
	switch {
	case len(plain) == 0:
		return "run with --yolo to allow destructive commands"
	case r.byKind[destructiveKind] > 0:
		return "run with --yes to allow " + words.OrList(plain) + ", --yolo for destructive commands too"
	}
	return "run with --yes to allow " + words.OrList(plain)
}

// destructiveKind is what refusals calls a destructive command.
const destructiveKind = "destructive command"

// ragUsage describes --rag.
const ragUsage = "add the repository code that matches each prompt to it (RAG; needs tern index; default: the config's rag)"

// headlessApprover is the approval policy of `tern ask`: with --yes, writes
// and commands run, but destructive ones are refused; with --yolo those run
// too. Without either, calls are refused with a result that tells the model
// (and, through it, the user) how to allow them.
type headlessApprover struct {
	yes, yolo bool
	// command names the tern command for messages; "tern ask" when empty.
	command string
	// refused, when set, counts what was refused.
	refused *refusals
}

func (h headlessApprover) Approve(ctx context.Context, ap agent.Approval) (agent.Decision, error) {
	switch {
	case h.yolo, h.yes && !ap.Destructive:
		return agent.Decision{Allow: true}, nil
	}
	command := cmp.Or(h.command, "tern ask")
	kind := map[tools.Effect]string{tools.Writes: "file change", tools.Executes: "command", tools.External: "external tool call"}[ap.Effect]
	if ap.Destructive {
		h.refused.add(destructiveKind)
		return agent.Decision{Reason: fmt.Sprintf("it %s; %s refuses destructive or unchecked commands unless run with --yolo", ap.Why, command)}, nil
	}
	if strings.HasPrefix(ap.Tool, mcpServerApproval) { // a server start is no change of the model's
		return agent.Decision{Reason: fmt.Sprintf("%s asks no questions, so it starts a server the repository configures only when run with --yes", command)}, nil
	}
	h.refused.add(cmp.Or(kind, "change"))
	// Worded for the model and the user alike: the model passes it on,
	// and tern doctor shows it as it is.
	return agent.Decision{Reason: fmt.Sprintf("%s asks no questions, so it refuses %s unless run with --yes", command, cmp.Or(kind, "change")+"s")}, nil
}

// eventWriter renders agent events.
type eventWriter interface {
	Write(agent.Event)
	Flush() error
}

// jsonWriter prints one JSON object per event.
type jsonWriter struct {
	w   *bufio.Writer
	err error
}

func newJSONWriter(w io.Writer) *jsonWriter { return &jsonWriter{w: bufio.NewWriter(w)} }

func (j *jsonWriter) Write(e agent.Event) {
	if j.err != nil {
		return
	}
	b, err := agent.MarshalEvent(e)
	if err != nil {
		j.err = err
		return
	}
	j.w.Write(b)
	j.w.WriteByte('\n')
	// Flush per event so a reader sees tokens as they stream.
	j.err = j.w.Flush()
}

func (j *jsonWriter) Flush() error { return j.err }

// textWriter streams the answer to stdout and everything else, briefly, to
// stderr.
type textWriter struct {
	out, diag io.Writer
	verbose   bool
	// atLineStart tracks stdout, so the answer ends with a newline.
	atLineStart bool
	thinking    bool
}

func newTextWriter(out, diag io.Writer, verbose bool) *textWriter {
	return &textWriter{out: out, diag: diag, verbose: verbose, atLineStart: true}
}

func (t *textWriter) Write(e agent.Event) {
	switch e := e.(type) {
	case agent.Token:
		t.endThinking()
		fmt.Fprint(t.out, e.Text)
		t.atLineStart = strings.HasSuffix(e.Text, "\n")
	case agent.Thinking:
		if t.verbose {
			if !t.thinking {
				fmt.Fprint(t.diag, "thinking: ")
				t.thinking = true
			}
			fmt.Fprint(t.diag, e.Text)
		}
	case agent.ToolStart:
		t.endThinking()
		t.newline()
		fmt.Fprintf(t.diag, "▸ %s %s\n", e.Name, compactArgs(e.Args))
	case agent.ToolEnd:
		mark := "✓"
		if e.IsError {
			mark = "✗"
		}
		line := e.Summary
		if e.IsError {
			line = firstLine(e.Output)
		}
		fmt.Fprintf(t.diag, "  %s %s\n", mark, line)
	case agent.Notice:
		t.newline()
		fmt.Fprintf(t.diag, "tern: %s\n", e.Text)
	case agent.Message:
		// The answer was already streamed as tokens.
	case agent.Done:
		t.endThinking()
		t.newline()
		if t.verbose {
			fmt.Fprintf(t.diag, "tern: %s after %d request(s), %d prompt + %d generated tokens, %s\n",
				e.Reason, e.Turns, e.PromptTokens, e.EvalTokens, e.Duration.Round(1e6))
		}
	}
}

func (t *textWriter) endThinking() {
	if t.thinking {
		fmt.Fprintln(t.diag)
		t.thinking = false
	}
}

func (t *textWriter) newline() {
	if !t.atLineStart {
		fmt.Fprintln(t.out)
		t.atLineStart = true
	}
}

func (t *textWriter) Flush() error { return nil }

// compactArgs renders call arguments on one short line.
func compactArgs(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return ""
	}
	s := string(args)
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	return s
}
