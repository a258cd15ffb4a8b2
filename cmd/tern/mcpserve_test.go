package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCall calls tool on a tern mcp session and returns its text.
func mcpCall(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// startMCP runs tern mcp in-process on the fixture and connects the MCP
// SDK's client to it.
func (f *fixture) startMCP(t *testing.T) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		var errb syncBuffer
		code := Main(context.WithoutCancel(t.Context()), []string{"mcp", "--dir", f.dir}, inR, outW, &errb, func(k string) string { return f.env[k] })
		outW.Close()
		if code != 0 {
			t.Errorf("tern mcp exited %d: %s", code, errb.String())
		}
		exited <- code
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		inW.Close()
		<-exited
	})
	return s
}

// tern mcp serves the index to another agent: two read-only tools, the
// search and the map; without an index they say how to build one.
func TestMCPServesTheIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.startMCP(t)
	if text, isErr := mcpCall(t, s, "search_code", map[string]any{"query": "main"}); !isErr || !strings.Contains(text, "tern index") {
		t.Errorf("search without an index = %q (error %v)", text, isErr)
	}

	if code, _, errOut := f.tern(t.Context(), "index"); code != 0 {
		t.Fatalf("tern index: %s", errOut)
	}
	tools, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	if strings.Join(names, ",") != "repo_map,search_code" && strings.Join(names, ",") != "search_code,repo_map" {
		t.Errorf("tools = %v", names)
	}
	if text, isErr := mcpCall(t, s, "search_code", map[string]any{"query": "main function", "k": 2}); isErr || !strings.Contains(text, "main.go:") {
		t.Errorf("search_code = %q (error %v)", text, isErr)
	}
	if text, isErr := mcpCall(t, s, "search_code", map[string]any{"query": "x", "path": "../etc"}); !isErr {
		t.Errorf("a path outside the repository was searched: %q", text)
	}
	if text, isErr := mcpCall(t, s, "repo_map", nil); isErr || !strings.Contains(text, "main.go") {
		t.Errorf("repo_map = %q (error %v)", text, isErr)
	}
}
