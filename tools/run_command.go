package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ternhq/tern/tools/sandbox"
)

//go:embed run_command.md
var runCommandDoc string

// Command time limits.
const (
	DefaultCommandTimeout = 30 * time.Second
	MaxCommandTimeout     = 120 * time.Second
	// stopGrace is how long a stopped command may take to exit after
	// SIGTERM before its process group is killed.
	stopGrace = 2 * time.Second
)

// commandEnv keeps commands from waiting for a person or a pager.
var commandEnv = []string{
	"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true",
	"TERM=dumb", "NO_COLOR=1", "DEBIAN_FRONTEND=noninteractive",
}

type runCommand struct {
	Decl
	ws    *Workspace
	cp    *Checkpoint
	rules *commandRules
	shell string
	// reaper is tern's binary, which runs commands as a subreaper; empty
	// means a process group only.
	reaper string
	// terminal, when set, runs the commands in the editor's terminal.
	terminal Terminal
	// sandbox confines commands; required refuses them when it cannot.
	sandbox  *sandbox.Sandbox
	required bool
}

// NewRunCommand returns the run_command tool: a shell command run with
// bash -c in the workspace root, with no input, a timeout, its combined
// output capped (the whole spilled to .tern/outputs), and its whole process
// group stopped when it ends, times out or is cancelled. The policy's deny
// patterns are refused outright; its allow patterns run without approval.
// Its sandbox, when active, confines each command and everything it
// starts, and what it stopped is said first in the result ("blocked by
// the sandbox: …"). cp, which may be nil, is saved before the first
// command runs.
func NewRunCommand(ws *Workspace, cp *Checkpoint, policy CommandPolicy) (Tool, error) {
	rules, err := newCommandRules(policy, ws.root)
	if err != nil {
		return nil, err
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		shell = "sh"
	}
	if policy.Reaper != "" && policy.Terminal == nil {
		becomeSubreaper()
	}
	return &runCommand{ws: ws, cp: cp, rules: rules, shell: shell, reaper: policy.Reaper, terminal: policy.Terminal,
		sandbox: policy.Sandbox, required: policy.RequireSandbox, Decl: Declare[commandArgs]("run_command", runCommandDoc)}, nil
}

func (t *runCommand) Effect() Effect { return Executes }

type commandArgs struct {
	Command string `json:"command" tool:"required,subject"`
	Timeout intArg `json:"timeout"`
}

// check decodes a call and applies the deny list.
func (t *runCommand) check(raw json.RawMessage) (commandArgs, time.Duration, []string, *Result) {
	var args commandArgs
	refuse := func(summary, format string, a ...any) (commandArgs, time.Duration, []string, *Result) {
		r := fail(summary, format, a...)
		return args, 0, nil, &r
	}
	if err := decodeArgs(raw, &args); err != nil {
		return refuse("run_command: bad arguments", "%v", err)
	}
	args.Command = strings.TrimSpace(args.Command)
	if args.Command == "" {
		return refuse("run_command: no command", `command is required, e.g. {"command":"go test ./..."}`)
	}
	if t.required {
		if err := t.sandbox.Require(); err != nil {
			return refuse("$ "+oneLineCommand(args.Command)+": no sandbox",
				"Commands cannot run here: the user's configuration requires the sandbox ([sandbox] required = true), and %v. Do the task without running commands, or tell the user.", err)
		}
	}
	if pat, ok := t.rules.denied(args.Command); ok {
		return refuse("$ "+oneLineCommand(args.Command)+": denied",
			"This command is denied by the user's configuration (deny_commands %q). Do not try to get around it; do the task another way or tell the user what you need.", pat)
	}
	var notes []string
	timeout := time.Duration(args.Timeout.or(0)) * time.Second
	switch {
	case timeout <= 0:
		timeout = DefaultCommandTimeout
	case timeout > MaxCommandTimeout:
		notes = append(notes, fmt.Sprintf("timeout lowered to the maximum, %d s", int(MaxCommandTimeout.Seconds())))
		timeout = MaxCommandTimeout
	}
	return args, timeout, notes, nil
}

// Review shows the command line and says whether it is destructive or
// allowed by the configuration.
func (t *runCommand) Review(_ context.Context, raw json.RawMessage) Review {
	args, timeout, _, refused := t.check(raw)
	if refused != nil {
		return Review{Refused: refused}
	}
	v := t.rules.rules.Judge(args.Command)
	why := v.Destructive
	if why == "" && v.Opaque != "" {
		why = v.Opaque + ", so tern cannot tell what it does"
	}
	return Review{
		Preview:     fmt.Sprintf("$ %s\n(in %s, timeout %s)", args.Command, t.ws.root, timeout),
		Destructive: why,
		Allowed:     why == "" && v.Allowed,
		Prefix:      v.Prefix, // never set for a destructive or opaque line
	}
}

func (t *runCommand) Run(ctx context.Context, in Input) Result {
	args, timeout, notes, refused := t.check(in.Args)
	if refused != nil {
		return *refused
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	t.cp.Save(ctx)
	began := time.Now()
	sink := newOutputSink(max(limit-300, 256), func() (*os.File, string, error) { return t.ws.openSpill("run_command") })
	summary := "$ " + oneLineCommand(args.Command)
	argv, err := t.sandbox.Command([]string{t.shell, "-c", args.Command})
	if err != nil {
		return fail(summary+": not started", "the sandbox could not be set up: %v", err)
	}
	restore := t.sandbox.Guard()
	var w io.Writer = sink
	var tail *progressTail
	if in.Progress != nil && t.terminal == nil {
		// The end of the output as it comes, for the call's line (an
		// editor's terminal shows the output itself).
		tail = newProgressTail(in.Progress)
		w = io.MultiWriter(sink, tail)
	}
	var ended ending
	switch {
	case t.terminal != nil:
		ended, err = runInTerminal(ctx, t.terminal, in.CallID, argv, t.ws.root, timeout, w)
	case t.reaper != "":
		ended, err = runReaped(ctx, t.reaper, argv, t.ws.root, timeout, w)
	default:
		ended, err = runGroup(ctx, argv, t.ws.root, timeout, w)
	}
	if tail != nil {
		tail.stop()
	}
	sink.close()
	took := time.Since(began).Round(10 * time.Millisecond)
	if err != nil {
		return fail(summary+": not started", "the command could not be started: %v", err)
	}

	out := sink.text()
	// What the sandbox stopped comes first: it is what the model must
	// act on, and the line tern ask shows.
	blocked := append(restore(), t.sandbox.Blocked(out, t.ws.root)...)
	var b strings.Builder
	for _, line := range blocked {
		b.WriteString(line + "\n")
	}
	for _, n := range notes {
		b.WriteString("(" + n + ")\n")
	}
	switch ended.how {
	case endTimeout:
		fmt.Fprintf(&b, "Timed out after %s: the command and everything it started were stopped. Output so far:\n", timeout)
	case endCancel:
		b.WriteString("Cancelled by the user: the command and everything it started were stopped. Output so far:\n")
	}
	if out == "" {
		out = "(no output)"
	}
	b.WriteString(strings.TrimSuffix(out, "\n"))
	b.WriteByte('\n')
	if ended.strays {
		b.WriteString("(processes it left running in the background were stopped)\n")
	}
	res := Result{IsError: ended.how != endExit || ended.code != 0 || len(blocked) > 0}
	switch ended.how {
	case endExit:
		fmt.Fprintf(&b, "exit code %d", ended.code)
		summary += fmt.Sprintf(" → exit %d (%s)", ended.code, took)
	case endTimeout:
		b.WriteString("exit code: none (timed out)")
		summary += fmt.Sprintf(" → timed out after %s", timeout)
	case endCancel:
		b.WriteString("exit code: none (cancelled)")
		summary += " → cancelled"
	case endSignal:
		fmt.Fprintf(&b, "killed by a signal (%s)", ended.signal)
		summary += " → killed (" + ended.signal + ")"
	}
	if len(blocked) > 0 {
		summary += " · blocked by the sandbox"
	}
	res.Output, res.Summary = b.String(), summary
	return res
}

// How a command ended.
const (
	endExit = iota
	endSignal
	endTimeout
	endCancel
)

type ending struct {
	how    int
	code   int
	signal string
	// strays is set when processes of its group outlived the command.
	strays bool
}

// runGroup runs argv in dir, in a process group of its own, writing its
// combined output to out. On timeout or cancellation it stops the group
// (SIGTERM, then SIGKILL after stopGrace); when the command exits it
// kills what it left behind in the group. It returns when the
// command has ended and its output is drained; an error means it did not
// start.
func runGroup(ctx context.Context, argv []string, dir string, timeout time.Duration, out io.Writer) (ending, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return ending{}, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), commandEnv...)
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe, so the output stays in order
	inGroup(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return ending{}, err
	}
	pw.Close() // the command holds its own copy
	drained := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(drained)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var end ending
	var waitErr error
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case waitErr = <-exited:
	case <-timer.C:
		end.how = endTimeout
		waitErr = stop(cmd, exited)
	case <-ctx.Done():
		end.how = endCancel
		waitErr = stop(cmd, exited)
	}
	if groupAlive(cmd) {
		end.strays = end.how == endExit
		signalGroup(cmd, true)
	}
	// A process that left the group may still hold the pipe open.
	select {
	case <-drained:
	case <-time.After(stopGrace):
		pr.Close()
		<-drained
	}
	pr.Close()
	if end.how == endExit {
		var exitErr *exec.ExitError
		switch {
		case waitErr == nil:
		case errors.As(waitErr, &exitErr) && exitErr.ExitCode() >= 0:
			end.code = exitErr.ExitCode()
		case errors.As(waitErr, &exitErr):
			end.how, end.signal = endSignal, signalName(exitErr)
		default:
			return end, waitErr
		}
	}
	return end, nil
}

// stop ends cmd's process group: SIGTERM, then SIGKILL if it has not
// exited within stopGrace. It returns the command's wait error.
func stop(cmd *exec.Cmd, exited <-chan error) error {
	signalGroup(cmd, false)
	select {
	case err := <-exited:
		return err
	case <-time.After(stopGrace):
	}
	signalGroup(cmd, true)
	return <-exited
}

func signalName(e *exec.ExitError) string {
	s := e.String() // "signal: killed"
	return strings.TrimPrefix(s, "signal: ")
}

// oneLineCommand shortens a command for a summary line.
func oneLineCommand(c string) string {
	r := []rune(squeeze(c))
	if len(r) > 80 {
		return string(r[:77]) + "…"
	}
	return string(r)
}
