package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/ternhq/tern/acp"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools/mcp"
)

// editorFixture is the MCP fixture as an editor passes it in session/new:
// the test binary, told by its environment to serve MCP on stdio, with
// marker on its command line to find its process by.
func editorFixture(t *testing.T, name, marker string) sdk.McpServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: name, Command: exe, Args: []string{marker},
		Env: []sdk.EnvVariable{{Name: mcpFixtureEnv, Value: "stdio"}}}}
}

// The editor's stdio MCP servers run beside the config's: the model is
// offered their tools with tier 3 and what it calls reaches it. A config
// server of the same name wins (here a disabled one), and a server over a
// transport tern does not speak is named; both are said in notices. The
// server stops when the session closes.
func TestACPEditorMCPServers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("[mcp.servers.fix]\nenabled = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.startACP(t)
	r.newSession(t, f.dir)
	r.waitLine(t, `"mcpCapabilities":{"http":true}`)
	r.allowFirst()
	marker := fmt.Sprintf("tern-editor-mcp-%d", os.Getpid())
	s, err := r.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: f.dir, McpServers: []sdk.McpServer{
		editorFixture(t, "ed", marker),
		editorFixture(t, "fix", marker+"-fix"),
		{Sse: &sdk.McpServerSseInline{Name: "old", Type: "sse", Url: "http://127.0.0.1:1/sse", Headers: []sdk.HttpHeader{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(s.SessionId)
	r.waitLine(t, `"sessionId":"`+id+`"`, "agent_thought_chunk", "the editor's MCP servers (ed) start beside your config's")
	r.waitLine(t, `"sessionId":"`+id+`"`, "agent_thought_chunk", `the editor's MCP server \"fix\" is not started`, "[mcp.servers.fix], disabled there), which comes first")
	r.waitLine(t, `"sessionId":"`+id+`"`, "agent_thought_chunk", "the editor's MCP server old (SSE) is not started: tern reaches MCP servers over stdio and HTTP only")

	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ed_get_weather", Args: `{"city":"Paris"}`}}},
		ollamatest.Reply{Content: "It is sunny in Paris."},
	)
	r.prompt(t, s.SessionId, sdk.TextBlock("look up online the weather forecast in Paris"))
	reqs := f.srv.Requests()
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Function.Name)
	}
	if !slices.Contains(names, "ed_get_weather") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "fix_") }) {
		t.Fatalf("tools sent = %v; want the editor's ed_get_weather and nothing of a server named fix", names)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "Sunny, 21°C in Paris") {
		t.Errorf("the editor's MCP tool's result did not reach the model: %+v", last)
	}

	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		return // no /proc to find the server's process in
	}
	if pids := withMarker(marker); len(pids) != 1 {
		t.Fatalf("processes of the editor's server ed: %v; want one", pids)
	}
	if _, err := r.conn.CloseSession(t.Context(), sdk.CloseSessionRequest{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(patience)
	for len(withMarker(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the editor's server still runs after session/close: %v", withMarker(marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An editor's server that does not start costs its tools, not the
// session: the notice names it and says why, and the turn goes on.
func TestACPEditorMCPServerFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	r.newSession(t, f.dir)
	s, err := r.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: f.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "broken", Command: "/nonexistent/mcp-server", Args: []string{}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Script(ollamatest.Reply{Content: "The weather server did not start, so there is no forecast."})
	r.prompt(t, s.SessionId, sdk.TextBlock("look up online the weather forecast in Paris"))
	r.waitLine(t, `"sessionId":"`+string(s.SessionId)+`"`, "agent_thought_chunk", "some external tools are unavailable: mcp server broken: cannot run /nonexistent/mcp-server")
}

// TestEditorMCP: the editor's servers become the runner's as they are:
// a $ in a value is the editor's, not a reference to tern's environment,
// and messages name the editor's settings, not a config file.
func TestEditorMCP(t *testing.T) {
	t.Parallel()
	got := editorMCP([]acp.MCPServer{
		{Name: "gh", Command: "gh-mcp", Args: []string{"--ro"}, Env: map[string]string{"TOKEN": "pa$word"}},
		{Name: "docs", URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer $x"}},
	})
	want := []mcp.ServerConfig{
		{Name: "gh", Command: "gh-mcp", Args: []string{"--ro"}, Env: map[string]string{"TOKEN": "pa$$word"}, Entry: `the editor's settings for MCP server "gh"`},
		{Name: "docs", URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer $$x"}, Entry: `the editor's settings for MCP server "docs"`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("servers (-want +got):\n%s", d)
	}
	for _, s := range got {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}
