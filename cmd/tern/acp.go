package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/acp"
	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/acpcmd"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/cmd/tern/internal/versioncmd"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// acpCommand is tern acp: tern as an editor's agent over stdio.
func (a *app) acpCommand() *cobra.Command {
	return acpcmd.NewCmd(func(cmd *cobra.Command, o *acpcmd.Options) error {
		return runCommand(cmd.Context(), a, o, a.acp)
	})
}

func (a *app) acp(ctx context.Context, o *acpcmd.Options) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	roots := o.Roots
	if len(roots) == 0 {
		root, err := a.workspaceRoot()
		if err != nil {
			return err
		}
		roots = []string{root, a.getenv("HOME")}
	}
	places, err := acpcmd.NewPlaces(roots)
	if err != nil {
		return exitCodeError{exitUsage, err}
	}
	if isTerminal(a.stdin) {
		fmt.Fprintln(a.stderr, "tern acp: waiting for an editor's Agent Client Protocol messages on stdin; start it from your editor instead (docs/editors.md). Ctrl+D ends it.")
	}
	level := slog.LevelWarn
	if a.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	// The token tables load once, for every session of the connection.
	counter := sync.OnceValues(budget.NewCounter)
	return acp.Serve(ctx, a.stdin, a.stdout, acp.Deps{
		Open:    func(ctx context.Context, so acp.OpenOptions) (acp.Session, error) { return a.openACP(ctx, so, counter) },
		List:    listSessions,
		Place:   places.Check,
		Version: versioncmd.String(),
		Log:     log,
	})
}

// openACP opens a session for the editor in its workspace, with the
// workspace's config, as tern ask opens its own; approvals go to the
// editor unless --yes or --yolo answers them.
func (a *app) openACP(ctx context.Context, o acp.OpenOptions, counter func() (*budget.Counter, error)) (acp.Session, error) {
	cfg, err := a.config(o.Dir)
	if err != nil {
		return nil, err
	}
	approver := o.Approver
	if a.yes || a.yolo {
		approver = headless.Approver{Yes: true, Yolo: a.yolo, Command: "tern acp"}
	}
	ro := runner.Options{Resume: o.Resume, Approver: approver, RAG: cfg.RAG,
		TierFlag: a.cmd.PersistentFlags().Changed("tier")}
	if o.Ask != nil {
		ro.Asker = acpAsker(o.Ask)
	}
	if o.Files != nil {
		ro.Editor = o.Files
	}
	if o.Terminal != nil {
		ro.Terminal = acpTerminal{o.Terminal}
	}
	ro.MCPServers = editorMCP(o.MCPServers)
	r, err := runner.Open(ctx, a.runEnv(o.Dir, cfg, counter), ro)
	if err != nil {
		return nil, err
	}
	return &acpSession{r: r, approver: approver}, nil
}

// editorMCP are the MCP servers the editor passed as the runner takes
// them. The editor's values are literal: a $ in them is not one of the
// config's $VAR references to tern's environment.
func editorMCP(servers []acp.MCPServer) []mcp.ServerConfig {
	literal := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = strings.ReplaceAll(v, "$", "$$")
		}
		return out
	}
	var out []mcp.ServerConfig
	for _, s := range servers {
		out = append(out, mcp.ServerConfig{Name: s.Name, Command: s.Command, Args: s.Args, Env: literal(s.Env),
			URL: s.URL, Headers: literal(s.Headers), Entry: fmt.Sprintf("the editor's settings for MCP server %q", s.Name)})
	}
	return out
}

// listSessions lists the sessions stored in dir, newest first; a
// workspace tern never ran in has none (and gets no .tern).
func listSessions(ctx context.Context, dir string) ([]session.Session, error) {
	store, ok, err := session.OpenExisting(ctx, dir)
	if err != nil || !ok {
		return nil, err
	}
	defer store.Close()
	return store.List(ctx, 200)
}

// acpAsker puts ask_user's questions in the editor's permission prompts.
type acpAsker func(ctx context.Context, qs []acp.Question) ([]string, error)

func (ask acpAsker) Ask(ctx context.Context, qs []tools.Question) ([]string, error) {
	list := make([]acp.Question, len(qs))
	for i, q := range qs {
		list[i] = acp.Question{Text: q.Text, Options: q.Options}
	}
	answers, err := ask(ctx, list)
	if errors.Is(err, acp.ErrNotAnswered) {
		return nil, tools.ErrNotAnswered
	}
	return answers, err
}

// acpTerminal is the editor's terminal as run_command's.
type acpTerminal struct{ t *acp.Terminal }

func (t acpTerminal) Run(ctx context.Context, c tools.TerminalCommand) (tools.TerminalExit, error) {
	r, err := t.t.Run(ctx, acp.TerminalRun{CallID: c.CallID, Argv: c.Argv, Dir: c.Dir, Env: c.Env, OutputLimit: c.OutputLimit})
	return tools.TerminalExit{Output: r.Output, Truncated: r.Truncated, Exited: r.Exited, ExitCode: r.ExitCode, Signal: r.Signal}, err
}

// acpSession is a run as the editor drives it.
type acpSession struct {
	r        *runner.Run
	approver agent.Approver
	// undos counts /undo's questions, each a tool call of its own id.
	undos int
}

func (s *acpSession) ID() string { return s.r.SessionID() }

// explain words a turn's error for the user, as tern ask does.
func (s *acpSession) explain(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return s.r.Conn().Explain(err)
}

func (s *acpSession) Run(ctx context.Context, prompt string, emit func(agent.Event)) error {
	return s.explain(s.r.Agent().Run(ctx, prompt, emit))
}

func (s *acpSession) AcceptPlan(ctx context.Context, note string, emit func(agent.Event)) error {
	return s.explain(s.r.AcceptPlan(ctx, note, emit))
}

func (s *acpSession) RevisePlan(ctx context.Context, comment string, emit func(agent.Event)) error {
	return s.explain(s.r.Agent().RevisePlan(ctx, comment, emit))
}

func (s *acpSession) ProposedPlan() string { return s.r.Agent().ProposedPlan() }
func (s *acpSession) PlanMode() bool       { return s.r.Agent().PlanMode() }
func (s *acpSession) SetPlanMode(on bool)  { s.r.Agent().SetPlanMode(on) }
func (s *acpSession) Tier() int            { return int(s.r.Tools().Tier()) }
func (s *acpSession) MaxTier() int         { return int(s.r.Tools().Max()) }

func (s *acpSession) SetTier(ctx context.Context, n int) error {
	return s.r.Tools().SetTier(ctx, disclosure.Tier(n), "chosen in the editor")
}

func (s *acpSession) History() []models.Message { return s.r.Agent().History() }

func (s *acpSession) Calls(ctx context.Context) (map[string]session.ToolCallRecord, error) {
	recs, err := s.r.Store().ToolCalls(ctx, s.r.SessionID())
	if err != nil {
		return nil, err
	}
	out := make(map[string]session.ToolCallRecord, len(recs))
	for _, r := range recs {
		out[r.CallID] = r
	}
	return out, nil
}

func (s *acpSession) Describe(tool string, args json.RawMessage) string {
	return s.r.Agent().Describe(tool, args)
}

// Notices are how the session opened: the model, when tern chose it, and
// what the runner noted.
func (s *acpSession) Notices() []string {
	c := s.r.Conn()
	var out []string
	if c.Why != "requested" {
		out = append(out, fmt.Sprintf("using %s (%s; choose with --model)", c.Info.Name, c.Why))
	}
	return append(out, s.r.Notices()...)
}
func (s *acpSession) Close() error { return s.r.Close() }

// Commands are the TUI's slash commands that make sense in an editor;
// the modes stand for /tier and /plan.
func (s *acpSession) Commands() []acp.Command {
	say := func(emit func(agent.Event), text string) { emit(agent.Token{Text: text}) }
	u := &undoer{ws: s.r.Workspace(), session: s.r.SessionID()}
	return []acp.Command{
		{Name: "compact", Description: "shrink the conversation to free the model's window",
			Run: func(ctx context.Context, _ string, emit func(agent.Event)) error {
				return s.r.Agent().Compact(ctx, emit)
			}},
		{Name: "diff", Description: "what this session changed: the diff from before its first write to the files now",
			Run: func(ctx context.Context, _ string, emit func(agent.Event)) error {
				diff, err := u.Diff(ctx)
				switch {
				case err != nil:
					say(emit, "No diff: "+err.Error()+"\n")
				case diff == "":
					say(emit, "This session has changed no files.\n")
				default:
					say(emit, "```diff\n"+strings.TrimSuffix(diff, "\n")+"\n```\n")
				}
				return nil
			}},
		{Name: "undo", Description: "restore the files to before the session's first write (asks first)",
			Run: func(ctx context.Context, _ string, emit func(agent.Event)) error { return s.undo(ctx, u, emit) }},
		{Name: "tools", Description: "the tools of each tier, which the model can call now, and what their schemas cost",
			Run: func(_ context.Context, _ string, emit func(agent.Event)) error {
				say(emit, s.toolTable())
				return nil
			}},
	}
}

// undo shows what /undo would restore, asks, and restores.
func (s *acpSession) undo(ctx context.Context, u *undoer, emit func(agent.Event)) error {
	plan, err := u.PlanUndo(ctx)
	if err != nil {
		emit(agent.Token{Text: "Nothing to undo: " + err.Error() + "\n"})
		return nil
	}
	var b strings.Builder
	for _, f := range plan.Restore {
		fmt.Fprintf(&b, "restore %s\n", f)
	}
	for _, f := range plan.Delete {
		fmt.Fprintf(&b, "delete %s (created by the session)\n", f)
	}
	if b.Len() == 0 {
		emit(agent.Token{Text: "Nothing to undo: the files are as they were at the checkpoint.\n"})
		return nil
	}
	s.undos++
	d, err := s.approver.Approve(ctx, agent.Approval{ID: fmt.Sprintf("undo-%d", s.undos), Tool: "undo", Effect: tools.Writes, Preview: b.String(), Once: true})
	if err != nil {
		return err
	}
	if !d.Allow {
		emit(agent.Token{Text: "Undo cancelled; the files are as they were.\n"})
		return nil
	}
	msg, err := u.Undo(ctx, plan)
	if err != nil {
		return err
	}
	emit(agent.Token{Text: msg + "\n"})
	return nil
}

// toolTable lists the tools by tier, marking those the model sees now.
func (s *acpSession) toolTable() string {
	set := s.r.Tools()
	active := map[string]bool{}
	for _, t := range set.All() {
		active[t.Spec().Name] = true
	}
	var b strings.Builder
	b.WriteString("| tier | tool | tokens | now |\n|---|---|---|---|\n")
	for tier := disclosure.Read; tier <= disclosure.External; tier++ {
		for _, t := range set.Tools(tier) {
			spec := t.Spec()
			mark := ""
			if active[spec.Name] {
				mark = "✓"
			}
			fmt.Fprintf(&b, "| %d | %s | %d | %s |\n", tier, spec.Name, s.r.Counter().Count(string(spec.WireJSON())), mark)
		}
	}
	return b.String()
}
