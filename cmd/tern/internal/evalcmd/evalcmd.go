// Package evalcmd is the `tern eval` command, in the cli/cli manner:
// Options (its flags), NewCmd (the cobra command, handing the parsed
// Options to the run it is given, so that tests parse command lines
// without running anything) and Run (load, filter or list the suite, run
// it, write the report).
//
// Package main gives Run the sessions to run tasks in (Env.Open) and maps
// ErrFailed to exit 1. evalcmd imports eval, nothing else of tern.
package evalcmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/eval"
)

// Options are the flags of tern eval.
type Options struct {
	// TasksDir, when set, holds the suite to run instead of the built-in
	// one; Run keeps the tasks whose name contains one of its words.
	TasksDir string
	Run      []string
	List     bool
	JSON     bool
	Replay   bool
	Keep     bool
	Timeout  time.Duration
	// Modes, when set, runs the suite once per tool mode.
	Modes []string
	// EscalateModel is the model a stuck task moves to.
	EscalateModel string
}

// NewCmd returns the tern eval command. It hands the options it parsed to
// run.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	var o Options
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
each mode, so the three can be compared on one model.

--escalate-model B lets a task whose model gets stuck move to B for the
rest of its turn, as escalate_model does; the report says per task whether
it moved, how many requests B answered, and whether it helped (the task
passed: without B its turn would have stopped as stuck).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.TasksDir, "tasks", "", "run the suite in DIR (tasks/NAME/task.toml and fixtures/) instead of the built-in one")
	f.StringSliceVar(&o.Run, "run", nil, "run only the tasks whose name contains one of these (repeatable)")
	f.BoolVar(&o.List, "list", false, "list the tasks, one per line, and exit")
	f.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	f.BoolVar(&o.Replay, "replay", false, "play the recorded transcripts against a fake Ollama instead of a real model")
	f.BoolVar(&o.Keep, "keep", false, "keep each task's workspace copy (its path is in the report)")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "longest a task may run")
	f.StringVar(&o.EscalateModel, "escalate-model", "", "the model a task's stuck turn moves to (default: the config's escalate_model; needs a real model, not --replay)")
	f.StringSliceVar(&o.Modes, "modes", nil, "run the suite once in each of these tool modes (native, text, constrained) and compare their share of valid calls")
	return cmd
}

// ErrFailed is Run's error when the report is written and a task failed
// or could not run: tern exits 1 without a further word.
var ErrFailed = errors.New("a task failed or could not run")

// ErrEscalateReplay is Run's usage error for --escalate-model with
// --replay: a transcript is one model's.
var ErrEscalateReplay = UsageError{errors.New("--escalate-model needs a real model: --replay plays one model's recorded transcripts")}

// UsageError is Run's error for flags that cannot go together or a
// value out of range: package main exits 2 on it.
type UsageError struct{ error }

func (e UsageError) Unwrap() error { return e.error }

// check is the usage error of o's flags, nil when they make sense.
func check(o *Options) error {
	switch {
	case o.Timeout <= 0:
		return UsageError{fmt.Errorf("--timeout must be more than 0 (the longest a task may run, e.g. 10m), not %v", o.Timeout)}
	case o.Replay && o.EscalateModel != "":
		return ErrEscalateReplay
	}
	if err := eval.CheckModes(o.Modes); err != nil {
		return UsageError{err}
	}
	return nil
}

// Env is what Run works with.
type Env struct {
	// Out gets the list or the report; Err a line per task as it ends
	// (not with --json).
	Out, Err io.Writer
	// Model is the model asked for (--model); OpenAI plays replays on a
	// fake llama-server (--backend openai).
	Model  string
	OpenAI bool
	// EscalateModel is the config's escalate_model, which
	// --escalate-model replaces.
	EscalateModel string
	// Open opens a task's session.
	Open eval.Opener
	// Interruptible, when set, gives the context the suite runs in, that
	// Ctrl+C cancels, and its stop.
	Interruptible func(context.Context) (context.Context, context.CancelFunc)
}

// Run loads the suite and keeps the tasks --run names; lists them with
// --list, else runs them and writes the report, as a table or as JSON.
func Run(ctx context.Context, env Env, o *Options) error {
	suite := eval.Suite()
	if o.TasksDir != "" {
		suite = os.DirFS(o.TasksDir)
	}
	tasks, err := eval.Load(suite)
	if err != nil {
		return err
	}
	tasks = eval.Filter(tasks, o.Run)
	if len(tasks) == 0 {
		return fmt.Errorf("no task matches --run %s; see tern eval --list", strings.Join(o.Run, ","))
	}
	if o.List {
		return eval.WriteList(env.Out, tasks)
	}
	if err := check(o); err != nil {
		return err
	}
	if env.Interruptible != nil {
		var stop context.CancelFunc
		ctx, stop = env.Interruptible(ctx)
		defer stop()
	}

	escalate := cmp.Or(o.EscalateModel, env.EscalateModel)
	if o.Replay {
		escalate = "" // replays play without the user's config
	}
	var progress io.Writer
	if !o.JSON {
		progress = env.Err
	}
	report, err := eval.Run(ctx, tasks, eval.Options{Model: env.Model, Replay: o.Replay, OpenAI: env.OpenAI,
		Keep: o.Keep, Timeout: o.Timeout, Modes: o.Modes, EscalateModel: escalate, Progress: progress}, env.Open)
	if err != nil {
		return err
	}
	if o.JSON {
		err = report.WriteJSON(env.Out)
	} else {
		err = report.WriteTable(env.Out)
	}
	if err != nil {
		return err
	}
	if !report.OK() {
		return ErrFailed
	}
	return nil
}
