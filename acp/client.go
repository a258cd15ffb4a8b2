package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// FileSystem is the editor's file system, as the file tools use it when
// the client offers fs/read_text_file and fs/write_text_file: reads see
// its buffers, unsaved changes included; writes land in them. Paths are
// absolute; tern's workspace has checked them before they get here.
type FileSystem interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// editorFiles is the client's file system for one session.
type editorFiles struct{ l *live }

func (f editorFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	resp, err := f.l.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.l.id), Path: f.l.clientPath(path)})
	if err != nil {
		return "", clientError(err)
	}
	return resp.Content, nil
}

func (f editorFiles) WriteTextFile(ctx context.Context, path, content string) error {
	_, err := f.l.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.l.id), Path: f.l.clientPath(path), Content: content})
	return clientError(err)
}

// clientPath is the path the client knows a file of the workspace by:
// tern's tools name files by their real path, symbolic links resolved,
// and the client by its cwd's, which may go through a link (a project
// opened as ~/src/app, where ~/src links elsewhere). The editor's buffers
// are under the client's name.
func (l *live) clientPath(path string) string {
	if l.real == "" || l.real == l.dir {
		return path
	}
	rel, err := filepath.Rel(l.real, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return path
	}
	return filepath.Join(l.dir, rel)
}

// clientError words an error the client answered with.
func clientError(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return errors.New(requestErrorText(re))
	}
	return err
}

// Terminal runs commands in the editor's terminals, where the user sees
// them (when the client offers terminal/*). Package main gives it to
// run_command, which keeps its own deny list, approvals, timeout and
// output cap around it.
type Terminal struct{ l *live }

// TerminalRun is a command to run in a terminal.
type TerminalRun struct {
	// CallID is the run_command call it answers: the terminal is shown
	// with that call.
	CallID string
	Argv   []string
	Dir    string
	// Env is added to the terminal's environment, "NAME=value" each.
	Env []string
	// OutputLimit is the most output, in bytes, the terminal keeps.
	OutputLimit int
}

// TerminalResult is how a command in a terminal ended.
type TerminalResult struct {
	Output    string
	Truncated bool
	// Exited is set when the command ended by itself, with ExitCode or
	// Signal; otherwise ctx ended first and the command was killed.
	Exited   bool
	ExitCode int
	Signal   string
}

// stopTimeout bounds each request that stops, reads and releases a
// terminal once the command has ended, so a client that stops answering
// cannot hold the turn.
var stopTimeout = 5 * time.Second

// stopping makes one such request, with its own time: one that took all
// of it leaves the next its own (a slow output read must not cancel the
// release before it is sent).
func stopping[T any](l *live, req func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(l.a.life, stopTimeout)
	defer cancel()
	return req(ctx)
}

// Run creates a terminal for r, shows it with its call, waits for the
// command to exit or for ctx to end (then kills it), reads its output and
// releases it.
func (t *Terminal) Run(ctx context.Context, r TerminalRun) (TerminalResult, error) {
	if len(r.Argv) == 0 {
		return TerminalResult{}, errors.New("no command")
	}
	l := t.l
	id := sdk.SessionId(l.id)
	cwd := l.clientPath(r.Dir)
	req := sdk.CreateTerminalRequest{SessionId: id, Command: r.Argv[0], Args: r.Argv[1:], Cwd: &cwd}
	if r.OutputLimit > 0 {
		req.OutputByteLimit = &r.OutputLimit
	}
	for _, kv := range r.Env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			req.Env = append(req.Env, sdk.EnvVariable{Name: name, Value: value})
		}
	}
	created, err := l.a.conn.CreateTerminal(ctx, req)
	if err != nil {
		return TerminalResult{}, fmt.Errorf("the editor could not open a terminal: %w", clientError(err))
	}
	term := created.TerminalId
	if r.CallID != "" {
		l.mu.Lock()
		if l.terminals == nil {
			l.terminals = map[string]string{}
		}
		l.terminals[r.CallID] = term
		l.mu.Unlock()
		l.update(sdk.UpdateToolCall(sdk.ToolCallId(r.CallID), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(term)})))
	}

	var res TerminalResult
	exit, err := l.a.conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: id, TerminalId: term})
	if err == nil {
		res.Exited = true
		if exit.ExitCode != nil {
			res.ExitCode = *exit.ExitCode
		}
		if exit.Signal != nil {
			res.Signal = *exit.Signal
		}
	} else if _, kerr := stopping(l, func(ctx context.Context) (sdk.KillTerminalResponse, error) {
		return l.a.conn.KillTerminal(ctx, sdk.KillTerminalRequest{SessionId: id, TerminalId: term})
	}); kerr != nil {
		l.a.deps.Log.Warn("kill terminal", "terminal", term, "err", kerr)
	}
	if out, err := stopping(l, func(ctx context.Context) (sdk.TerminalOutputResponse, error) {
		return l.a.conn.TerminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: id, TerminalId: term})
	}); err == nil {
		res.Output, res.Truncated = out.Output, out.Truncated
	}
	if _, err := stopping(l, func(ctx context.Context) (sdk.ReleaseTerminalResponse, error) {
		return l.a.conn.ReleaseTerminal(ctx, sdk.ReleaseTerminalRequest{SessionId: id, TerminalId: term})
	}); err != nil {
		l.a.deps.Log.Warn("release terminal", "terminal", term, "err", err)
	}
	return res, nil
}
