// Package mcpserve is the `tern mcp` command: the workspace's code index
// as a Model Context Protocol server over stdio, so that other agents and
// editors can search the code with tern's index (search_code) and get its
// repository map (repo_map). It only reads: the repository is never
// changed, and the index is only brought up to date with changed files.
//
// In the cli/cli manner: Options, NewCmd (the cobra command, handing the
// parsed Options to the run it is given) and Serve. Package main gives
// Serve the index. mcpserve imports nothing of tern.
package mcpserve

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// Options are tern mcp's flags.
type Options struct{}

// NewCmd returns the tern mcp command.
func NewCmd(run func(*cobra.Command, *Options) error) *cobra.Command {
	o := &Options{}
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the repository index to other agents over MCP (search_code, repo_map; read-only)",
		Long: `tern mcp is a Model Context Protocol server on stdin and stdout: another agent
or an editor starts it and calls its tools. It offers the workspace's code
index, which 'tern index' builds:

  search_code  hybrid (lexical and semantic) search over the code: the best
               chunks with their paths and lines
  repo_map     the repository's files, most referenced first, with their main
               declarations

Both only read. Files changed since the last 'tern index' are read again
(lexically) before a search, so the results follow the code. Without an index
the tools say to run 'tern index'. See docs/editors.md for the client settings.`,
		Example: `  # An MCP client's configuration (Claude Desktop, Cursor, Zed's context servers):
  #   {"command": "tern", "args": ["mcp", "--dir", "/path/to/repo"]}
  tern mcp --dir ~/src/project`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, o)
		},
	}
}

// Index is the workspace's code index as the tools use it.
type Index interface {
	// SearchCode returns the best k chunks for query under pathPrefix,
	// rendered in at most budget bytes, and a few words on the search.
	SearchCode(ctx context.Context, query string, k int, pathPrefix string, budget int) (text, summary string, err error)
	// RepoMap draws the repository within budget tokens.
	RepoMap(ctx context.Context, budget int) (string, error)
}

// Limits of the tools.
const (
	defaultHits   = 8
	maxHits       = 30
	searchBudget  = 24 << 10 // bytes of search results
	defaultTokens = 2000     // of the repository map
	maxTokens     = 16000
)

type searchArgs struct {
	Query string `json:"query" jsonschema:"what to find, in words or identifiers, e.g. where the config file is parsed"`
	K     int    `json:"k,omitempty" jsonschema:"how many results (default 8, at most 30)"`
	Path  string `json:"path,omitempty" jsonschema:"only search under this directory or file, relative to the repository root"`
}

type mapArgs struct {
	Tokens int `json:"tokens,omitempty" jsonschema:"about how many tokens the map may take (default 2000, at most 16000)"`
}

// NewServer returns the MCP server over ix.
func NewServer(ix Index, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "tern", Title: "tern code index", Version: version}, &mcp.ServerOptions{
		Instructions: "Search this repository's code with search_code; get an overview of its files and declarations with repo_map.",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(s, &mcp.Tool{Name: "search_code", Annotations: readOnly,
		Description: "Search the repository's code by meaning and by name (tern's hybrid index). Returns the best matching functions, types and passages with their file paths and line numbers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, any, error) {
			q := strings.Join(strings.Fields(a.Query), " ")
			if q == "" {
				return failed(`query is required, e.g. {"query":"where the config file is parsed"}`), nil, nil
			}
			k := a.K
			if k <= 0 {
				k = defaultHits
			}
			path := strings.Trim(strings.TrimSpace(a.Path), "/")
			if path == "." {
				path = ""
			}
			if strings.HasPrefix(path, "..") {
				return failed("path must be inside the repository"), nil, nil
			}
			text, summary, err := ix.SearchCode(ctx, q, min(k, maxHits), path, searchBudget)
			if err != nil {
				return failed(err.Error()), nil, nil
			}
			if text == "" {
				text = "no code matches " + fmt.Sprintf("%q", q)
			}
			return ok(text + "\n(" + summary + ")"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "repo_map", Annotations: readOnly,
		Description: "An overview of the repository: its files, most referenced first, each with its main declarations and their signatures."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a mapArgs) (*mcp.CallToolResult, any, error) {
			tokens := a.Tokens
			if tokens <= 0 {
				tokens = defaultTokens
			}
			m, err := ix.RepoMap(ctx, min(tokens, maxTokens))
			if err != nil {
				return failed(err.Error()), nil, nil
			}
			return ok(m), nil, nil
		})
	return s
}

func ok(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// failed is a tool error the calling model reads, not a protocol error.
func failed(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// Serve runs the server over ix on in and out until the client leaves
// or ctx is done.
func Serve(ctx context.Context, ix Index, version string, in io.ReadCloser, out io.WriteCloser) error {
	return NewServer(ix, version).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}
