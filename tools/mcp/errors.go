package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
)

// startError is why a server did not start or stopped, in words for the
// user and the model, with what to change when tern can tell.
type startError struct {
	msg string
	fix string
	err error
}

func (e *startError) Error() string { return e.msg }
func (e *startError) Unwrap() error { return e.err }

// fixOf returns the fix an error carries, or "".
func fixOf(err error) string {
	var se *startError
	if errors.As(err, &se) {
		return se.fix
	}
	return ""
}

// explain turns an error from starting the server into a startError.
func (s *server) explain(err error, c *conn) error {
	if errors.Is(err, ErrClosed) {
		return err
	}
	var se *startError
	if errors.As(err, &se) {
		return err
	}
	cfg := s.cfg
	where := cfg.where()
	e := &startError{err: err}
	var netErr net.Error
	switch {
	case errors.Is(err, exec.ErrNotFound):
		e.msg = "command not found: " + cfg.Command
		e.fix = installHint(cfg.Command) + ", or fix " + where
	case errors.Is(err, fs.ErrPermission):
		e.msg = fmt.Sprintf("cannot run %s: permission denied", cfg.Command)
		e.fix = "make it executable, or fix " + where
	case errors.Is(err, fs.ErrNotExist) && cfg.Command != "" && c.cmd != nil && c.cmd.Process == nil:
		e.msg = fmt.Sprintf("cannot run %s: %v", cfg.Command, err)
		e.fix = "fix the command or the workspace directory in " + where
	case errors.Is(err, context.DeadlineExceeded):
		e.msg = fmt.Sprintf("no answer within %v%s", cfg.timeout(), c.exit())
		e.fix = "check that it is an MCP server, or raise timeout in " + where
	case errors.Is(err, context.Canceled):
		e.msg = "start cancelled"
	case c.cmd != nil && c.cmd.ProcessState != nil:
		e.msg = "the server exited during startup" + c.exit()
		e.fix = fmt.Sprintf("run `%s` yourself to see why, or fix %s", strings.TrimPrefix(cfg.Transport(), "stdio: "), where)
	case cfg.URL != "" && errors.As(err, &netErr):
		e.msg = fmt.Sprintf("cannot reach %s: %v", cfg.URL, err)
		e.fix = "start the server, or fix url in " + where
	case cfg.URL != "" && refused(err):
		e.msg = fmt.Sprintf("%s refused tern: %v", cfg.URL, err)
		e.fix = fmt.Sprintf("set an Authorization header in [mcp.servers.%s.headers]", cfg.Name)
	default:
		e.msg = err.Error() + c.exit()
		e.fix = "check " + where
	}
	return e
}

// refused reports whether an HTTP server turned tern away for want of
// credentials. The SDK reports the status text ("Unauthorized"), not a
// typed error.
func refused(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Unauthorized", "Forbidden"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// installHint says what provides a command that was not found.
func installHint(command string) string {
	switch strings.TrimSuffix(filepath.Base(command), ".exe") {
	case "npx", "node", "npm":
		return "install Node.js (it provides npx)"
	case "uvx", "uv":
		return "install uv (https://docs.astral.sh/uv/)"
	case "python", "python3", "pip", "pipx":
		return "install Python"
	case "docker":
		return "install Docker"
	case "bun", "bunx":
		return "install Bun"
	case "deno":
		return "install Deno"
	}
	return "install it or give its full path"
}
