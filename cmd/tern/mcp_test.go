package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ternhq/tern/models/ollamatest"
)

// mcpFixtureEnv makes the test binary serve MCP on stdio instead of
// running tests, so a .tern.toml can name it as a server.
const mcpFixtureEnv = "TERN_TEST_MCP_FIXTURE"

func TestMain(m *testing.M) {
	if code, ok := runHelper(os.Args); ok {
		os.Exit(code)
	}
	if os.Getenv(runMainEnv) == "1" {
		// The test binary stands in for tern (start-up benchmarks).
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	if os.Getenv(mcpFixtureEnv) == "stdio" {
		if err := mcpFixture().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	removeTernBinary()
	os.Exit(code)
}

type cityArgs struct {
	City string `json:"city" jsonschema:"the city name"`
}

type textArgs struct {
	Text string `json:"text" jsonschema:"the text"`
}

// mcpFixture is an MCP server with a dozen tools, of which a task needs one.
func mcpFixture() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fixture", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "get_weather", Description: "Get the current weather forecast for a city."},
		func(_ context.Context, _ *sdk.CallToolRequest, in cityArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny, 21°C in " + in.City}}}, nil, nil
		})
	for _, name := range []string{"create_issue", "list_issues", "send_email", "post_message", "list_channels",
		"search_docs", "translate_text", "convert_currency", "book_meeting", "list_calendars", "shorten_link"} {
		sdk.AddTool(s, &sdk.Tool{Name: name, Description: "Do " + strings.ReplaceAll(name, "_", " ") + "."},
			func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " done"}}}, nil, nil
			})
	}
	return s
}

// withMCPFixture configures the fixture as the project's MCP server "fix".
func withMCPFixture(t *testing.T, f *fixture) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("[mcp.servers.fix]\ncommand = %q\nenv = { %s = \"stdio\" }\n", exe, mcpFixtureEnv)
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTier3OffersOnlyTheMatchingMCPTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	withMCPFixture(t, f)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "fix_get_weather", Args: `{"city":"Paris"}`}}},
		ollamatest.Reply{Content: "It is sunny in Paris."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--yes", "look up online the weather forecast in Paris")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if out != "It is sunny in Paris.\n" || !strings.Contains(errOut, "✓") {
		t.Errorf("stdout %q, stderr:\n%s", out, errOut)
	}
	reqs := f.srv.Requests()
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Function.Name)
	}
	if !slices.Contains(names, "fetch_url") || !slices.Contains(names, "fix_get_weather") {
		t.Fatalf("tools sent = %v; want fetch_url and the weather tool", names)
	}
	mcpTools := 0
	for _, n := range names {
		if strings.HasPrefix(n, "fix_") {
			mcpTools++
		}
	}
	if mcpTools > 4 {
		t.Errorf("%d of the server's 12 tools were sent (%v); want only the few matching the task", mcpTools, names)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "Sunny, 21°C in Paris") {
		t.Errorf("the MCP call's result did not reach the model: %+v", last)
	}
}

func TestProjectMCPServerNeedsConsent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	withMCPFixture(t, f)
	f.srv.Script(ollamatest.Reply{Content: "The project's weather server was not started, so there is no forecast."})
	code, _, errOut := f.tern(t.Context(), "ask", "look up online the weather forecast in Paris")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "external tools are unavailable") || !strings.Contains(errOut, ".tern.toml") {
		t.Errorf("stderr does not say the project's server was not started:\n%s", errOut)
	}
	for _, tl := range f.srv.Requests()[0].Tools {
		if strings.HasPrefix(tl.Function.Name, "fix_") {
			t.Errorf("a tool of an unapproved project server was offered: %s", tl.Function.Name)
		}
	}
	code, out, _ := f.tern(t.Context(), "doctor")
	if !strings.Contains(out, "fix: not started: this repository's .tern.toml names it, and starting it was not approved: tern doctor asks no questions, so it starts a server the repository configures only when run with --yes") ||
		strings.Contains(out, "the user must") {
		t.Errorf("doctor (exit %d) does not explain how to start the project's server:\n%s", code, out)
	}
}
