package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Setup is what a task's session is opened with.
type Setup struct {
	Task Task
	// Dir is the copy of the task's fixture the session works in; Tmp is
	// the throw-away directory that holds it (and a replay's home, see
	// IsolatedEnv).
	Dir, Tmp string
	// Mode is the tool mode to run in (native, text or constrained), or
	// "" for the one tern would choose.
	Mode string
	// Replay, for a replay, is the fake server to play against; nil for a
	// real model.
	Replay *Played
	// EscalateModel is the model a stuck turn moves to ("" for none).
	EscalateModel string
}

// Played is the fake server a replay plays against.
type Played struct {
	// URL is its address; Model the model it serves.
	URL, Model string
}

// Info is what a session says of itself once open.
type Info struct {
	// Model names the model that runs; NativeTools says it can call
	// tools natively.
	Model       string
	NativeTools bool
	// Offers tells whether the session offers a tool at the task's tier.
	Offers func(tool string) bool
}

// Session is a task's agent session, as package main opens it.
type Session interface {
	// Run runs prompt to the end of the turn. Its error is worded for
	// the user; a cancel is returned as it is.
	Run(ctx context.Context, prompt string) (Turn, error)
	// Calls returns the tool calls the session recorded.
	Calls(ctx context.Context) ([]Call, error)
	Close() error
}

// Turn is what a session's run of the task's prompt gave.
type Turn struct {
	// Answer is the final answer; Done the agent's done reason.
	Answer, Done                    string
	Turns, PromptTokens, EvalTokens int
	// Mode is the tool mode the session ended in.
	Mode string
	// Escalated names the model the turn moved to when it got stuck ("":
	// it did not), which answered EscalatedTurns of its requests.
	Escalated      string
	EscalatedTurns int
}

// Opener opens a task's session. Its error ends the whole run when the
// model is real (no server, no model: no task can run); a replay's is the
// task's error.
type Opener func(ctx context.Context, s Setup) (Session, Info, error)

// Options are how a suite runs.
type Options struct {
	// Model is the model asked for (--model), for the report; a live run
	// without one reports the model the first task ran.
	Model string
	// Replay plays the recorded transcripts; OpenAI plays them on a fake
	// llama-server instead of a fake Ollama.
	Replay, OpenAI bool
	// Keep keeps each task's copy, and says where in the result.
	Keep bool
	// Timeout is the longest a task may run.
	Timeout time.Duration
	// Modes runs the suite once per tool mode; none runs it once in the
	// mode tern would choose.
	Modes []string
	// EscalateModel is the model a stuck turn moves to (--escalate-model).
	EscalateModel string
	// Progress, when set, gets a line per task as it ends.
	Progress io.Writer
}

// Run runs tasks, once per mode, and reports. Its error ends the run
// (a bad mode, no model server, a cancel); a task that fails, is skipped
// or cannot run is in the report.
func Run(ctx context.Context, tasks []Task, o Options, open Opener) (Report, error) {
	report := Report{Model: o.Model, Replay: o.Replay, EscalateModel: o.EscalateModel}
	if o.Replay {
		report.Model = "replay"
	}
	modes := o.Modes
	if err := CheckModes(modes); err != nil {
		return report, err
	}
	if len(modes) == 0 {
		modes = []string{""} // the mode tern would choose
	}
	for _, mode := range modes {
		for _, t := range tasks {
			res, model, err := RunTask(ctx, t, mode, o, open)
			if err != nil {
				return report, err
			}
			if report.Model == "" {
				report.Model = model
			}
			if o.Progress != nil {
				WriteProgress(o.Progress, res)
			}
			report.Add(res)
		}
	}
	return report, nil
}

// RunTask runs one task in a fresh copy of its fixture, in mode, and
// judges it. err is for failures that end the whole run (no model server,
// a cancel); a task that cannot be run is a result with status Error.
func RunTask(ctx context.Context, t Task, mode string, o Options, open Opener) (res Result, model string, err error) {
	res = Result{Task: t.Name, Tier: t.Tier}
	began := time.Now()
	defer func() { res.Wall = time.Since(began) }()
	fail := func(status, why string) (Result, string, error) {
		res.Status, res.Why = status, why
		return res, model, nil
	}

	tmp, err := os.MkdirTemp("", "tern-eval-"+t.Name+"-")
	if err != nil {
		return res, "", fmt.Errorf("eval: %w", err)
	}
	if o.Keep {
		res.Why = "workspace kept in " + tmp
	} else {
		defer os.RemoveAll(tmp)
	}
	setup := Setup{Task: t, Dir: filepath.Join(tmp, "repo"), Tmp: tmp, Mode: mode, EscalateModel: o.EscalateModel}
	if err := t.Prepare(setup.Dir); err != nil {
		return fail(Error, err.Error())
	}
	if o.Replay {
		srv, name, err := ReplayServer(t, o.OpenAI)
		if err != nil {
			return fail(Error, err.Error())
		}
		defer srv.Close()
		setup.Replay = &Played{URL: srv.URL(), Model: name}
	}

	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	s, info, err := open(ctx, setup)
	if err != nil {
		if o.Replay {
			return fail(Error, err.Error())
		}
		return res, "", err // the server or the model is not there: no task can run
	}
	defer s.Close()
	model = info.Model
	if mode == "native" && !info.NativeTools {
		return fail(Skip, model+" has no native tool support")
	}
	if missing := t.Missing(info.Offers); len(missing) > 0 {
		return fail(Skip, fmt.Sprintf("needs %s, which this build does not offer at tier %d", strings.Join(missing, " and "), t.Tier))
	}

	turn, runErr := s.Run(ctx, t.Prompt)
	res.Done, res.Turns, res.PromptTokens, res.EvalTokens, res.Answer = turn.Done, turn.Turns, turn.PromptTokens, turn.EvalTokens, turn.Answer
	res.Mode = turn.Mode
	res.Escalated, res.EscalatedTurns = turn.Escalated, turn.EscalatedTurns
	calls, err := s.Calls(context.WithoutCancel(ctx))
	if err != nil {
		return fail(Error, err.Error())
	}
	res.Count(calls)
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled) && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return res, model, runErr // the user pressed Ctrl+C
	case runErr != nil:
		return fail(Error, runErr.Error())
	}
	if ok, why := t.Check.Run(ctx, setup.Dir, turn.Answer); !ok {
		return fail(Fail, why)
	}
	res.Status = Pass
	return res, model, nil
}
