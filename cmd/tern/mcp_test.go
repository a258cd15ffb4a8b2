package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func writeConfig(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMCPServersConfig(t *testing.T) {
	root, xdg := t.TempDir(), t.TempDir()
	userFile := filepath.Join(xdg, "tern", "config.toml")
	projectFile := filepath.Join(root, ".tern.toml")
	writeConfig(t, userFile, `
[mcp.servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${GITHUB_TOKEN}" }

[mcp.servers.notes]
command = "notes-mcp"
timeout = "20s"
`)
	writeConfig(t, projectFile, `
[mcp.servers.github]
enabled = false

[mcp.servers.docs]
url = "https://docs.example.com/mcp"
headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
`)
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
	cfg, read, err := loadConfig(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 2 {
		t.Fatalf("read %v, want both files", read)
	}
	servers, err := cfg.MCP.servers()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range servers {
		got = append(got, fmt.Sprintf("%s on=%v %s timeout=%v from=%s", s.Name, s.On(), s.Transport(), s.Timeout, filepath.Base(s.Source)))
	}
	want := []string{
		"docs on=true http: https://docs.example.com/mcp timeout=0s from=.tern.toml",
		"github on=false neither command nor url timeout=0s from=.tern.toml",
		"notes on=true stdio: notes-mcp timeout=20s from=config.toml",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("servers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if servers[0].Headers["Authorization"] != "Bearer ${DOCS_TOKEN}" {
		t.Errorf("headers = %v; ${VAR} is expanded when the server starts, not in the config", servers[0].Headers)
	}
}

func TestMCPConfigErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"unknown key", "[mcp.servers.gh]\ncmd = \"npx\"\n", `unknown key "mcp.servers.gh.cmd"`},
		{"neither", "[mcp.servers.gh]\nargs = [\"x\"]\n", ".tern.toml [mcp.servers.gh]: set command (a program that speaks MCP on stdin/stdout) or url"},
		{"both", "[mcp.servers.gh]\ncommand = \"x\"\nurl = \"http://h\"\n", "set command or url, not both"},
		{"bad url", "[mcp.servers.gh]\nurl = \"localhost:3000\"\n", `url "localhost:3000" is not an http:// or https:// address`},
		{"bad timeout", "[mcp.servers.gh]\ncommand = \"x\"\ntimeout = \"soon\"\n", "invalid duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeConfig(t, filepath.Join(root, ".tern.toml"), tt.body)
			_, _, err := loadConfig(root, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("loadConfig = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// mcpHTTPServer serves a two-tool MCP server over streamable HTTP.
func mcpHTTPServer(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "fx", Version: "1"}, nil)
	type textIn struct {
		Text string `json:"text" jsonschema:"the text to send back"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "shout", Description: "Echo the text back in capitals."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestDoctorListsMCPServers(t *testing.T) {
	f := newFixture(t)
	writeConfig(t, filepath.Join(f.dir, ".tern.toml"), fmt.Sprintf(`
[mcp.servers.fx]
url = %q

[mcp.servers.missing]
command = "no-such-mcp-server-xyz"

[mcp.servers.off]
command = "npx"
enabled = false
`, mcpHTTPServer(t)))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	code, out, _ := f.tern(ctx, "doctor")
	if code != 1 {
		t.Errorf("doctor exit %d, want 1 for the server that does not start", code)
	}
	for _, want := range []string{
		"MCP         ✓ fx: 2 tools, ",
		" tokens of schemas (http: ",
		"fx_echo (", "fx_shout (",
		"MCP         ✗ missing: command not found: no-such-mcp-server-xyz",
		"install it or give its full path, or fix " + filepath.Join(f.dir, ".tern.toml") + " [mcp.servers.missing]",
		"MCP         · off: disabled (stdio: npx)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "All checks passed.") {
		t.Errorf("doctor says all checks passed with a broken MCP server:\n%s", out)
	}
}

func TestDoctorWithoutMCPServers(t *testing.T) {
	f := newFixture(t)
	code, out, _ := f.tern(t.Context(), "doctor")
	if code != 0 || !strings.Contains(out, "MCP         · no servers configured") {
		t.Errorf("doctor exit %d:\n%s", code, out)
	}
}
