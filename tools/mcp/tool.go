package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// RemoteTool is one tool of an MCP server, as the model sees it.
type RemoteTool struct {
	srv    *server
	remote string
	spec   models.ToolSpec
	// text is what Search matches: the server's name, the tool's own
	// name, its full description and its parameter names.
	text  string
	names string
}

func newRemoteTool(s *server, t *sdk.Tool, taken func(string) bool) *RemoteTool {
	params := compactSchema(t.InputSchema)
	var pnames []string
	for _, p := range models.SchemaParams(params) {
		pnames = append(pnames, p.Name)
	}
	return &RemoteTool{
		srv:    s,
		remote: t.Name,
		spec: models.ToolSpec{
			Name:        toolName(s.cfg.Name, t.Name, taken),
			Description: shortDescription(t.Description, descriptionBudget),
			Parameters:  params,
		},
		names: s.cfg.Name + " " + t.Name + " " + t.Title,
		text:  t.Description + " " + strings.Join(pnames, " "),
	}
}

// Spec is the tool as the model sees it.
func (t *RemoteTool) Spec() models.ToolSpec { return t.spec }

// Effect is External: every call reaches outside tern.
func (t *RemoteTool) Effect() tools.Effect { return tools.External }

// Server is the name of the server the tool belongs to, for approvals that
// cover a whole server.
func (t *RemoteTool) Server() string { return t.srv.cfg.Name }

// Remote is the tool's name on its server.
func (t *RemoteTool) Remote() string { return t.remote }

// Run calls the tool on its server. Whatever goes wrong (the server is
// down, stops during the call, does not answer in time, rejects the call)
// is a result that says what happened and that the session goes on.
func (t *RemoteTool) Run(ctx context.Context, in tools.Input) tools.Result {
	s := t.srv
	name := s.cfg.Name
	c, restarted, err := s.acquire(ctx)
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return fail(name+": shut down", "not run: tern has shut down its MCP servers")
		}
		return fail(name+": down", "%v", err)
	}
	params := &sdk.CallToolParams{Name: t.remote}
	if args := bytes.TrimSpace(in.Args); len(args) > 0 && string(args) != "null" {
		params.Arguments = json.RawMessage(args)
	}
	callCtx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	defer context.AfterFunc(s.m.stopCtx, cancel)() // Close waits for calls in flight: end them
	res, err := c.session.CallTool(callCtx, params)
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
	case s.m.closed.Load():
		return fail(name+": shut down", "not finished: tern shut down its MCP servers during the call")
	case ctx.Err() != nil:
		return fail(name+": cancelled", "not finished: the user cancelled the turn")
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return fail(name+": timed out", "MCP server %q did not answer %s within %v; the call was abandoned. The server still runs: try a smaller request, or do without this tool.",
			name, t.remote, s.cfg.timeout())
	case disconnected(err):
		s.lost(c)
		msg := fmt.Sprintf("MCP server %q stopped during the call%s. The session goes on; ", name, c.exit())
		if s.restartsLeft() {
			msg += "the next call of one of its tools restarts it once."
		} else {
			msg += "it was already restarted once, so its tools are unavailable for the rest of this session."
		}
		return fail(name+": server stopped", "%s", msg)
	case errors.As(err, &rpcErr):
		return fail(name+": rejected", "MCP server %q rejected the call of %s: %s", name, t.remote, rpcErr.Message)
	default:
		return fail(name+": error", "calling %s on MCP server %q: %v", t.remote, name, err)
	}

	out := render(res)
	summary := fmt.Sprintf("%s: %d lines", name, strings.Count(out, "\n")+1)
	if res.IsError {
		summary = name + ": error"
	}
	if restarted {
		out = fmt.Sprintf("(MCP server %q had stopped and was restarted for this call)\n", name) + out
	}
	ws := s.m.opts.Workspace
	out = ws.Fit(t.spec.Name, out, in.Limit)
	return tools.Result{Output: out, IsError: res.IsError, Summary: summary}
}

func (s *server) restartsLeft() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starts < maxStarts
}

// render joins a result's text content. Images, audio, binary resources
// and links are one line each saying what they are; embedded text
// resources are shown with their URI. A result with only structured
// content shows it as JSON.
func render(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %s; not shown]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %s; not shown]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *sdk.ResourceLink:
			line := "[resource " + c.URI
			if c.MIMEType != "" {
				line += ", " + c.MIMEType
			}
			parts = append(parts, strings.TrimSpace(line+"] "+c.Description))
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Text != "" || len(r.Blob) == 0:
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %s, %s; not shown]", r.URI, orUnknown(r.MIMEType), size(len(r.Blob))))
			}
		default:
			parts = append(parts, "[content of another kind; not shown]")
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if strings.TrimSpace(out) == "" {
		if res.IsError {
			return "the tool failed without saying why"
		}
		return "(no output)"
	}
	return strings.ToValidUTF8(out, "\uFFFD")
}

func orUnknown(mime string) string {
	if mime == "" {
		return "of unknown type"
	}
	return mime
}

// size formats a byte count as "812 B", "12.4 KiB" or "3.1 MiB".
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// fail is a failed result with a summary for people.
func fail(summary, format string, args ...any) tools.Result {
	r := tools.Errorf(format, args...)
	r.Summary = summary
	return r
}
