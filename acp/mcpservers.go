package acp

import (
	sdk "github.com/coder/acp-go-sdk"
)

// MCPServer is an MCP server the editor passes with session/new or
// session/load, for the session to start beside those of tern's config:
// a program that speaks MCP on its standard input and output (Command,
// Args, Env) or a streamable HTTP endpoint (URL, Headers). Env and
// Headers are the editor's values, literal.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// mcpServers sorts the servers the editor passed into those tern starts
// (stdio and HTTP, the transports initialize advertises) and the names of
// those it cannot reach (SSE, and ACP's own transport).
func mcpServers(servers []sdk.McpServer) (use []MCPServer, unsupported []string) {
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, v := range s.Stdio.Env {
				env[v.Name] = v.Value
			}
			use = append(use, MCPServer{Name: s.Stdio.Name, Command: s.Stdio.Command, Args: s.Stdio.Args, Env: env})
		case s.Http != nil:
			headers := map[string]string{}
			for _, h := range s.Http.Headers {
				headers[h.Name] = h.Value
			}
			use = append(use, MCPServer{Name: s.Http.Name, URL: s.Http.Url, Headers: headers})
		case s.Sse != nil:
			unsupported = append(unsupported, s.Sse.Name+" (SSE)")
		case s.Acp != nil:
			unsupported = append(unsupported, s.Acp.Name+" (ACP)")
		default:
			unsupported = append(unsupported, "(unnamed)")
		}
	}
	return use, unsupported
}
