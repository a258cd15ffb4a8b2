package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Terminal runs run_command's commands where the user watches them: the
// editor's terminal panel (tern acp). tern's own rules still hold: the
// deny list and approvals come first, the timeout and the cancel stop the
// command, and the output is capped and spilled as any command's.
type Terminal interface {
	// Run runs c and returns when it has exited, or, once ctx is done,
	// when the terminal has stopped it (Exited false then). An error means
	// it could not be started.
	Run(ctx context.Context, c TerminalCommand) (TerminalExit, error)
}

// TerminalCommand is a command for a Terminal.
type TerminalCommand struct {
	// CallID is the run_command call the command answers, so that the
	// editor can show its terminal with the call.
	CallID string
	// Argv is the program and its arguments; Dir where it runs; Env the
	// variables added to the terminal's environment ("NAME=value").
	Argv []string
	Dir  string
	Env  []string
	// OutputLimit is the most bytes of output the terminal keeps (its end).
	OutputLimit int
}

// TerminalExit is how a command in a Terminal ended.
type TerminalExit struct {
	Output string
	// Truncated is set when the terminal kept only the end of the output.
	Truncated bool
	// Exited is set when the command exited by itself, with ExitCode or,
	// when killed by a signal, Signal.
	Exited   bool
	ExitCode int
	Signal   string
}

// terminalOutputLimit is the output a terminal keeps for tern, sent back
// whole over the editor's connection: what the model is shown is capped
// from it as any command's output is.
const terminalOutputLimit = 1 << 20

// runInTerminal runs argv (the shell, perhaps behind the sandbox) in dir
// in the terminal term,
// writing its output to out; as runGroup does, it tells a timeout from a
// cancel.
func runInTerminal(ctx context.Context, term Terminal, callID string, argv []string, dir string, timeout time.Duration, out io.Writer) (ending, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	x, err := term.Run(tctx, TerminalCommand{CallID: callID, Argv: argv, Dir: dir,
		Env: commandEnv, OutputLimit: terminalOutputLimit})
	if err != nil {
		return ending{}, err
	}
	if x.Truncated {
		fmt.Fprintf(out, "(the terminal kept only the last %s of the output)\n", humanSize(terminalOutputLimit))
	}
	io.WriteString(out, x.Output)
	switch {
	case x.Exited && x.Signal != "":
		return ending{how: endSignal, signal: x.Signal}, nil
	case x.Exited:
		return ending{how: endExit, code: x.ExitCode}, nil
	case errors.Is(context.Cause(tctx), context.DeadlineExceeded) && ctx.Err() == nil:
		return ending{how: endTimeout}, nil
	}
	return ending{how: endCancel}, nil
}
