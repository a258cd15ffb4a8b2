//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ternhq/tern/tools"
)

// newStdioManager returns a Manager over the given real-process servers,
// with short stop timeouts, closed when the test ends.
func newStdioManager(t *testing.T, servers ...ServerConfig) *Manager {
	t.Helper()
	m, err := NewManager(Options{Workspace: newWorkspace(t), Servers: servers, StopTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// pidOf calls the fixture's pid tool (or spawn) and returns the number.
func pidOf(t *testing.T, m *Manager, tool string) int {
	t.Helper()
	r := run(t, m, tool, `{}`, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(r.Output[strings.LastIndexByte(r.Output, '\n')+1:]))
	if err != nil || r.IsError {
		t.Fatalf("%s: %+v", tool, r)
	}
	return pid
}

func TestStdioServerLeavesNoProcessesAfterClose(t *testing.T) {
	m := newStdioManager(t, stdioServer(t, "fx", "stdio"))
	if r := run(t, m, "fx_echo", `{"text":"over stdio"}`, 0); r.IsError || r.Output != "over stdio" {
		t.Fatalf("echo over stdio: %+v", r)
	}
	server := pidOf(t, m, "fx_pid")
	helper := pidOf(t, m, "fx_spawn") // a grandchild, as npx starts node
	if server == os.Getpid() || !alive(server) || !alive(helper) {
		t.Fatalf("server %d and helper %d should run as separate processes", server, helper)
	}
	if pgid, err := syscall.Getpgid(server); err != nil || pgid != server {
		t.Errorf("server's process group = %d (%v), want its own (%d), so Ctrl+C in tern does not reach it", pgid, err, server)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if alive(server) {
		t.Errorf("server process %d is still running after Close", server)
	}
	if !waitGone(helper, 5*time.Second) {
		t.Errorf("the server's child %d is still running after Close", helper)
	}
}

func TestStdioCrashGivesClearResultAndRestarts(t *testing.T) {
	m := newStdioManager(t, stdioServer(t, "fx", "stdio"))
	first := pidOf(t, m, "fx_pid")
	r := run(t, m, "fx_crash", `{}`, 0)
	for _, want := range []string{`MCP server "fx" stopped during the call`, "exit status 3", "panic: boom", "session goes on", "restarts it once"} {
		if !r.IsError || !strings.Contains(r.Output, want) {
			t.Errorf("crash result lacks %q: %+v", want, r)
		}
	}
	if !waitGone(first, 5*time.Second) {
		t.Errorf("crashed server %d was not reaped", first)
	}
	second := pidOf(t, m, "fx_pid")
	if second == first {
		t.Errorf("pid after restart = %d, the same as before the crash", second)
	}
	if r := run(t, m, "fx_echo", `{"text":"after the crash"}`, 0); r.IsError || r.Output != "after the crash" {
		t.Errorf("echo after restart: %+v", r)
	}
}

func TestStdioCloseDuringCall(t *testing.T) {
	m := newStdioManager(t, stdioServer(t, "fx", "stdio"))
	server := pidOf(t, m, "fx_pid")
	tool, _ := m.Get(t.Context(), "fx_slow")
	done := make(chan tools.Result, 1)
	go func() { done <- tool.Run(context.Background(), tools.Input{Args: json.RawMessage(`{"millis":60000}`)}) }()
	time.Sleep(100 * time.Millisecond) // let the call reach the server
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	r := <-done
	if !r.IsError {
		t.Errorf("a call cut short by Close succeeded: %+v", r)
	}
	if alive(server) {
		t.Errorf("server %d is still running after Close", server)
	}
}

func TestStdioStartFailures(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	missing := ServerConfig{Name: "missing", Command: "no-such-mcp-server-xyz", Source: ".tern.toml"}
	exits := stdioServer(t, "exits", "exit")
	mute := stdioServer(t, "mute", "mute")
	mute.Env[pidFileEnv] = pidFile
	// Long enough for the server to start and write its pid under load;
	// the wait is for an answer that never comes, so every run takes it.
	mute.Timeout = 2 * time.Second
	m := newStdioManager(t, missing, exits, mute)

	st := m.Status(t.Context(), nil)
	tests := []struct {
		err, fix []string
	}{
		{[]string{"command not found: no-such-mcp-server-xyz"}, []string{"install it or give its full path", "fix .tern.toml [mcp.servers.missing]"}},
		{[]string{"exited during startup", "exit status 2", "missing API key FOO_TOKEN"}, []string{"yourself to see why"}},
		{[]string{"no answer within 2s"}, []string{"raise timeout in the config [mcp.servers.mute]"}},
	}
	for i, tt := range tests {
		s := st[i]
		if s.Running || s.Err == nil {
			t.Errorf("%s: running %v, err %v; want a start failure", s.Config.Name, s.Running, s.Err)
			continue
		}
		for _, w := range tt.err {
			if !strings.Contains(s.Err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", s.Config.Name, s.Err, w)
			}
		}
		for _, w := range tt.fix {
			if !strings.Contains(s.Fix, w) {
				t.Errorf("%s: fix %q lacks %q", s.Config.Name, s.Fix, w)
			}
		}
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(data))
	if !waitGone(pid, 5*time.Second) {
		t.Errorf("the server that never answered (%d) is still running", pid)
	}
	if _, err := m.Search(t.Context(), "echo", 3); err == nil || !strings.Contains(err.Error(), "mcp server missing: command not found") {
		t.Errorf("Search error = %v, want the start failures", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close after failed starts: %v", err)
	}
}

// alive reports whether process pid still exists and is not a zombie
// waiting to be reaped.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return true // no /proc to tell a zombie by: trust kill
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false // gone since kill looked
	}
	// The state follows the command name in parentheses: "123 (x) Z ...".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits up to d for pid to be gone and reports whether it is.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
