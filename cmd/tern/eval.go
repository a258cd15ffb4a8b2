package main

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/eval"
	"github.com/ternhq/tern/cmd/tern/internal/evalcmd"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/models"
)

// evalCommand is tern eval, its tasks run in sessions tern ask would open.
func (a *app) evalCommand() *cobra.Command {
	return evalcmd.NewCmd(func(ctx context.Context, o *evalcmd.Options) error {
		return runCommand(ctx, a, o, a.eval)
	})
}

func (a *app) eval(ctx context.Context, o *evalcmd.Options) error {
	env := evalcmd.Env{Out: a.stdout, Err: a.stderr, Model: a.model, OpenAI: a.backend == config.BackendOpenAI,
		Open: a.openEvalTask, Interruptible: interruptible}
	if root, err := a.workspaceRoot(); err == nil {
		if cfg, err := a.config(root); err == nil {
			env.EscalateModel = cfg.EscalateModel
		}
	}
	err := evalcmd.Run(ctx, env, o)
	var usage evalcmd.UsageError
	switch {
	case errors.Is(err, evalcmd.ErrFailed):
		return exitCodeError{code: exitError}
	case errors.As(err, &usage):
		return exitCodeError{code: exitUsage, err: err}
	}
	return err
}

// openEvalTask opens a task's session as tern ask would, with the user's
// global flags and the task's workspace, tier, turn limit and mode, writes
// allowed; a replay plays against its fake server, in an environment of
// its own.
func (a *app) openEvalTask(ctx context.Context, s eval.Setup) (eval.Session, eval.Info, error) {
	sub, err := a.evalApp(s.Tmp, s.Dir, s.Task)
	if err != nil {
		return nil, eval.Info{}, err
	}
	if s.Mode != "" {
		sub.setFlag("tool-mode", s.Mode)
	}
	if s.Replay != nil {
		sub.setFlag("host", s.Replay.URL)
		sub.setFlag("model", s.Replay.Model)
		sub.getenv = eval.IsolatedEnv(s.Tmp, a.getenv)
	}
	r, err := sub.startRun(ctx, runner.Options{Approver: headless.Approver{Yes: true}, EscalateModel: s.EscalateModel})
	if err != nil {
		return nil, eval.Info{}, err
	}
	info := eval.Info{Model: r.Conn().Info.Name, NativeTools: r.Conn().Info.Has(models.CapTools),
		Offers: func(name string) bool { _, ok := r.Tools().Get(name); return ok }}
	return evalSession{r}, info, nil
}

// evalSession is a task's run as eval sees it.
type evalSession struct{ r *runner.Run }

// Run runs the prompt and keeps the answer and the Done's counts.
func (s evalSession) Run(ctx context.Context, prompt string) (eval.Turn, error) {
	var turn eval.Turn
	err := s.r.Agent().Run(ctx, prompt, func(e agent.Event) {
		switch e := e.(type) {
		case agent.Message:
			turn.Answer = e.Message.Content
		case agent.Done:
			turn.Done, turn.Turns, turn.PromptTokens, turn.EvalTokens = e.Reason, e.Turns, e.PromptTokens, e.EvalTokens
			turn.Escalated, turn.EscalatedTurns = e.Escalated, e.EscalatedTurns
		}
	})
	switch {
	case s.r.Agent().Constrained():
		turn.Mode = "constrained"
	case s.r.Agent().TextTools():
		turn.Mode = "text"
	default:
		turn.Mode = "native"
	}
	if err != nil {
		return turn, s.r.Conn().Explain(err)
	}
	return turn, nil
}

// Calls reads the run's tool calls back from the session store, as
// eval.Call values in the agent's words.
func (s evalSession) Calls(ctx context.Context) ([]eval.Call, error) {
	recorded, err := s.r.Store().ToolCalls(ctx, s.r.SessionID())
	if err != nil {
		return nil, err
	}
	calls := make([]eval.Call, len(recorded))
	for i, c := range recorded {
		calls[i] = eval.Call{Invalid: c.Summary == agent.InvalidCall, Unreadable: c.Repair == agent.RepairUnreadable, Repair: c.Repair}
	}
	return calls, nil
}

func (s evalSession) Close() error { return s.r.Close() }

// evalApp is a tern invocation for one task: the user's global flags, the
// task's workspace, tier and turn limit, and writes allowed.
func (a *app) evalApp(tmp, dir string, t eval.Task) (*app, error) {
	sub := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: a.getenv}
	sub.rootCommand()
	for _, name := range []string{"model", "host", "ctx", "vram", "ram", "tool-mode", "verbose", "backend"} {
		if f := a.cmd.PersistentFlags().Lookup(name); f != nil && f.Changed {
			sub.setFlag(name, f.Value.String())
		}
	}
	sub.setFlag("dir", dir)
	sub.setFlag("tier", strconv.Itoa(t.Tier))
	sub.setFlag("max-turns", strconv.Itoa(t.MaxTurns))
	sub.setFlag("yes", "true")
	return sub, nil
}

// setFlag sets a global flag as if it were given on the command line.
func (a *app) setFlag(name, value string) {
	_ = a.cmd.PersistentFlags().Set(name, value) // the names are ours
}
