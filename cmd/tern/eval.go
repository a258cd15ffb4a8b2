package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/eval"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/models"
)

// evalOptions are the flags of tern eval.
type evalOptions struct {
	tasksDir string
	run      []string
	list     bool
	jsonOut  bool
	replay   bool
	keep     bool
	timeout  time.Duration
	// modes, when set, runs the suite once per tool mode.
	modes []string
}

func (a *app) evalCommand() *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run the task suite and report success, turns, tool-call repairs and tokens",
		Long: `Run tern's suite of small coding tasks, each in a throw-away copy of a
fixture repository, and report per task: success (checked for real: go test,
file contents, the answer's words), model requests, tool calls, calls
repaired (by repair path), invalid calls, prompt tokens and wall time.

By default the tasks run against Ollama with --model (or the model tern
would choose). --replay plays the recorded transcripts (real small-model
failure shapes: bare JSON, stringified arguments, loops, tool-parse errors)
against a built-in fake Ollama instead: no model needed, same result every
time. With --backend openai, they play against a fake llama-server. Tasks
that need a tool this build lacks are skipped. Exits 1 when a task fails.

Each task reports the tool mode it ran in, and the totals give, per mode,
the share of valid calls: calls that ran as the model meant them, out of
every call it tried. --modes native,text,constrained runs the suite in
each mode, so the three can be compared on one model.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), a, &o, a.eval)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tasksDir, "tasks", "", "run the suite in DIR (tasks/NAME/task.toml and fixtures/) instead of the built-in one")
	f.StringSliceVar(&o.run, "run", nil, "run only the tasks whose name contains one of these (repeatable)")
	f.BoolVar(&o.list, "list", false, "list the tasks, one per line, and exit")
	f.BoolVar(&o.jsonOut, "json", false, "print the report as JSON")
	f.BoolVar(&o.replay, "replay", false, "play the recorded transcripts against a fake Ollama instead of a real model")
	f.BoolVar(&o.keep, "keep", false, "keep each task's workspace copy (its path is in the report)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "longest a task may run")
	f.StringSliceVar(&o.modes, "modes", nil, "run the suite once in each of these tool modes (native, text, constrained) and compare their share of valid calls")
	return cmd
}

func (a *app) eval(ctx context.Context, po *evalOptions) error {
	o := *po
	suite := eval.Suite()
	if o.tasksDir != "" {
		suite = os.DirFS(o.tasksDir)
	}
	tasks, err := eval.Load(suite)
	if err != nil {
		return err
	}
	tasks = eval.Filter(tasks, o.run)
	if len(tasks) == 0 {
		return fmt.Errorf("no task matches --run %s; see tern eval --list", strings.Join(o.run, ","))
	}
	if o.list {
		return eval.WriteList(a.stdout, tasks)
	}
	ctx, stop := interruptible(ctx)
	defer stop()

	var progress io.Writer
	if !o.jsonOut {
		progress = a.stderr
	}
	report, err := eval.Run(ctx, tasks, eval.Options{Model: a.model, Replay: o.replay, OpenAI: a.backend == config.BackendOpenAI,
		Keep: o.keep, Timeout: o.timeout, Modes: o.modes, Progress: progress}, a.openEvalTask)
	if err != nil {
		return err
	}
	if o.jsonOut {
		err = report.WriteJSON(a.stdout)
	} else {
		err = report.WriteTable(a.stdout)
	}
	if err != nil {
		return err
	}
	if !report.OK() {
		return exitCodeError{code: exitError}
	}
	return nil
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
	r, err := sub.startRun(ctx, runOptions{approver: headless.Approver{Yes: true}})
	if err != nil {
		return nil, eval.Info{}, err
	}
	info := eval.Info{Model: r.back.Info.Name, NativeTools: r.back.Info.Has(models.CapTools),
		Offers: func(name string) bool { _, ok := r.tools.Get(name); return ok }}
	return evalSession{r}, info, nil
}

// evalSession is a task's run as eval sees it.
type evalSession struct{ r *run }

// Run runs the prompt and keeps the answer and the Done's counts.
func (s evalSession) Run(ctx context.Context, prompt string) (eval.Turn, error) {
	var turn eval.Turn
	err := s.r.agent.Run(ctx, prompt, func(e agent.Event) {
		switch e := e.(type) {
		case agent.Message:
			turn.Answer = e.Message.Content
		case agent.Done:
			turn.Done, turn.Turns, turn.PromptTokens, turn.EvalTokens = e.Reason, e.Turns, e.PromptTokens, e.EvalTokens
		}
	})
	switch {
	case s.r.agent.Constrained():
		turn.Mode = "constrained"
	case s.r.agent.TextTools():
		turn.Mode = "text"
	default:
		turn.Mode = "native"
	}
	if err != nil {
		return turn, s.r.back.Explain(err)
	}
	return turn, nil
}

// Calls reads the run's tool calls back from the session store, as
// eval.Call values in the agent's words.
func (s evalSession) Calls(ctx context.Context) ([]eval.Call, error) {
	recorded, err := s.r.store.ToolCalls(ctx, s.r.sess.ID)
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
	for _, name := range []string{"model", "host", "ctx", "vram", "tool-mode", "verbose", "backend"} {
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
