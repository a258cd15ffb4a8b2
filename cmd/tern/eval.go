package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	// modes, when set, runs the suite once per tool mode; mode is the
	// one being run.
	modes []string
	mode  string
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

	report := eval.Report{Model: a.model, Replay: o.replay}
	if o.replay {
		report.Model = "replay"
	}
	modes := o.modes
	if err := eval.CheckModes(modes); err != nil {
		return err
	}
	if len(modes) == 0 {
		modes = []string{""} // the mode tern would choose
	}
	for _, mode := range modes {
		o.mode = mode
		for _, t := range tasks {
			res, model, err := a.evalTask(ctx, t, o)
			if err != nil {
				return err
			}
			if report.Model == "" {
				report.Model = model
			}
			if !o.jsonOut {
				eval.WriteProgress(a.stderr, res)
			}
			report.Add(res)
		}
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

// evalTask runs one task in a fresh copy of its fixture and judges it. err
// is for failures that end the whole run (no Ollama, a cancel); a task
// that cannot be run is a result with status error.
func (a *app) evalTask(ctx context.Context, t eval.Task, o evalOptions) (res eval.Result, model string, err error) {
	res = eval.Result{Task: t.Name, Tier: t.Tier}
	began := time.Now()
	defer func() { res.Wall = time.Since(began) }()
	fail := func(status, why string) (eval.Result, string, error) {
		res.Status, res.Why = status, why
		return res, model, nil
	}

	tmp, err := os.MkdirTemp("", "tern-eval-"+t.Name+"-")
	if err != nil {
		return res, "", fmt.Errorf("eval: %w", err)
	}
	if o.keep {
		res.Why = "workspace kept in " + tmp
	} else {
		defer os.RemoveAll(tmp)
	}
	dir := filepath.Join(tmp, "repo")
	if err := t.Prepare(dir); err != nil {
		return fail(eval.Error, err.Error())
	}

	sub, err := a.evalApp(tmp, dir, t)
	if err != nil {
		return fail(eval.Error, err.Error())
	}
	if o.mode != "" {
		sub.setFlag("tool-mode", o.mode)
	}
	if o.replay {
		srv, name, err := eval.ReplayServer(t, sub.backend == config.BackendOpenAI)
		if err != nil {
			return fail(eval.Error, err.Error())
		}
		defer srv.Close()
		sub.setFlag("host", srv.URL())
		sub.setFlag("model", name)
		sub.getenv = eval.IsolatedEnv(tmp, a.getenv)
	}

	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	r, err := sub.startRun(ctx, runOptions{approver: headless.Approver{Yes: true}})
	if err != nil {
		if o.replay {
			return fail(eval.Error, err.Error())
		}
		return res, "", err // Ollama or the model is not there: no task can run
	}
	defer r.Close()
	model = r.back.Info.Name
	if o.mode == "native" && !r.back.Info.Has(models.CapTools) {
		return fail(eval.Skip, model+" has no native tool support")
	}
	if missing := t.Missing(func(name string) bool { _, ok := r.tools.Get(name); return ok }); len(missing) > 0 {
		return fail(eval.Skip, fmt.Sprintf("needs %s, which this build does not offer at tier %d", strings.Join(missing, " and "), t.Tier))
	}

	var answer string
	var done agent.Done
	runErr := r.agent.Run(ctx, t.Prompt, func(e agent.Event) {
		switch e := e.(type) {
		case agent.Message:
			answer = e.Message.Content
		case agent.Done:
			done = e
		}
	})
	res.Done, res.Turns, res.PromptTokens, res.EvalTokens, res.Answer = done.Reason, done.Turns, done.PromptTokens, done.EvalTokens, answer
	switch {
	case r.agent.Constrained():
		res.Mode = "constrained"
	case r.agent.TextTools():
		res.Mode = "text"
	default:
		res.Mode = "native"
	}
	if err := countCalls(context.WithoutCancel(ctx), r, &res); err != nil {
		return fail(eval.Error, err.Error())
	}
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled) && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return res, model, runErr // the user pressed Ctrl+C
	case runErr != nil:
		return fail(eval.Error, r.back.Explain(runErr).Error())
	}
	if ok, why := t.Check.Run(ctx, dir, answer); !ok {
		return fail(eval.Fail, why)
	}
	res.Status = eval.Pass
	return res, model, nil
}

// countCalls reads the run's tool calls back from the session store and
// counts them into res, as eval.Call values in the agent's words.
func countCalls(ctx context.Context, r *run, res *eval.Result) error {
	recorded, err := r.store.ToolCalls(ctx, r.sess.ID)
	if err != nil {
		return err
	}
	calls := make([]eval.Call, len(recorded))
	for i, c := range recorded {
		calls[i] = eval.Call{Invalid: c.Summary == agent.InvalidCall, Unreadable: c.Repair == agent.RepairUnreadable, Repair: c.Repair}
	}
	res.Count(calls)
	return nil
}

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
