package acp

import (
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// TestMCPServers: the editor's stdio and HTTP servers are passed on, with
// their environment and headers; those over SSE or ACP's own transport,
// which tern does not speak, are named for the notice.
func TestMCPServers(t *testing.T) {
	var servers []sdk.McpServer
	err := json.Unmarshal([]byte(`[
		{"name":"gh","command":"gh-mcp","args":["--ro"],"env":[{"name":"TOKEN","value":"$SECRET"}]},
		{"type":"http","name":"docs","url":"https://docs.example/mcp","headers":[{"name":"Authorization","value":"Bearer x"}]},
		{"type":"sse","name":"old","url":"https://old.example/sse","headers":[]}
	]`), &servers)
	if err != nil {
		t.Fatal(err)
	}
	use, unsupported := mcpServers(servers)
	want := []MCPServer{
		{Name: "gh", Command: "gh-mcp", Args: []string{"--ro"}, Env: map[string]string{"TOKEN": "$SECRET"}},
		{Name: "docs", URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	if d := cmp.Diff(want, use); d != "" {
		t.Errorf("servers started (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"old (SSE)"}, unsupported); d != "" {
		t.Errorf("servers named as not started (-want +got):\n%s", d)
	}
}
