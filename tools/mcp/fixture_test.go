package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ternhq/tern/tools"
)

// fixtureEnv makes the test binary, run again as a child, act as the MCP
// fixture server over stdio ("stdio") or as a long sleeper ("sleep") that
// the fixture's spawn tool starts as a grandchild.
const fixtureEnv = "TERN_MCP_FIXTURE"

// pidFileEnv names a file the "mute" fixture writes its process id to.
const pidFileEnv = "TERN_MCP_PIDFILE"

func TestMain(m *testing.M) {
	switch os.Getenv(fixtureEnv) {
	case "stdio":
		fmt.Fprintln(os.Stderr, "fixture: serving MCP on stdio")
		srv := newFixtureServer(func() {
			fmt.Fprintln(os.Stderr, "panic: boom")
			os.Exit(3)
		})
		if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "fixture: missing API key FOO_TOKEN")
		os.Exit(2)
	case "mute":
		if f := os.Getenv(pidFileEnv); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
		}
		time.Sleep(time.Minute) // started, but never answers the handshake
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type slowIn struct {
	Millis int `json:"millis" jsonschema:"how long to wait, in milliseconds"`
}

type linesIn struct {
	Lines int `json:"lines" jsonschema:"how many lines to print"`
}

type issueIn struct {
	Repo  string `json:"repo" jsonschema:"owner/name of the repository"`
	Title string `json:"title" jsonschema:"the issue title"`
	Body  string `json:"body,omitempty" jsonschema:"the issue text, in Markdown"`
}

type listIssuesIn struct {
	Repo  string `json:"repo" jsonschema:"owner/name of the repository"`
	State string `json:"state,omitempty" jsonschema:"open or closed"`
}

type cityIn struct {
	City string `json:"city" jsonschema:"the city name"`
}

type mailIn struct {
	To      string `json:"to" jsonschema:"the address to send to"`
	Subject string `json:"subject" jsonschema:"the subject line"`
}

type none struct{}

// newFixtureServer is an MCP server with a dozen tools that exercise
// everything the client handles: plain results, errors, images, resources,
// big output, slowness and a crash (done by crash, which must not return).
// It lists five tools a page, so listing needs pagination.
func newFixtureServer(crash func()) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fixture", Version: "1"}, &sdk.ServerOptions{PageSize: 5})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers and return the sum."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Wait, then answer."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Millis) * time.Millisecond):
				return text("done waiting"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Stop the server abruptly."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			crash()
			select {} // the connection goes away under the call
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big_output", Description: "Print many numbered lines."},
		func(_ context.Context, _ *sdk.CallToolRequest, in linesIn) (*sdk.CallToolResult, any, error) {
			var b strings.Builder
			for i := 1; i <= in.Lines; i++ {
				fmt.Fprintf(&b, "line %d of %d\n", i, in.Lines)
			}
			return text(b.String()), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fail."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("disk quota exceeded")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Draw a picture."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here is the chart"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///blob.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 10)}},
				&sdk.ResourceLink{URI: "https://example.com/report", Name: "report", Description: "the full report"},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Report the server's process id."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Start a helper process and report its id."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			exe, err := os.Executable()
			if err != nil {
				return nil, nil, err
			}
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), fixtureEnv+"=sleep")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "createIssue", Title: "Create issue", Description: "Create a new issue in a GitHub repository.\n\nThe issue is opened at once; labels and assignees can be set later with other tools. This long second paragraph is never sent to the model."},
		func(_ context.Context, _ *sdk.CallToolRequest, in issueIn) (*sdk.CallToolResult, any, error) {
			return text("created issue #42 in " + in.Repo + ": " + in.Title), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "list_issues", Description: "List the issues of a GitHub repository, newest first."},
		func(_ context.Context, _ *sdk.CallToolRequest, in listIssuesIn) (*sdk.CallToolResult, any, error) {
			return text("#42 crash on start\n#41 slow search"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "get_weather", Description: "Get the current weather forecast for a city."},
		func(_ context.Context, _ *sdk.CallToolRequest, in cityIn) (*sdk.CallToolResult, any, error) {
			return text("sunny in " + in.City), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "send_email", Description: "Send an email message to one address."},
		func(_ context.Context, _ *sdk.CallToolRequest, in mailIn) (*sdk.CallToolResult, any, error) {
			return text("sent to " + in.To), nil, nil
		})
	return s
}

// fixtureToolCount is how many tools newFixtureServer has.
const fixtureToolCount = 13

// memServer is the fixture served in-process. Each Dial connects a fresh
// server session over a pipe; crash closes the pipe of the session that
// runs it, as a dying process would.
type memServer struct {
	mu    sync.Mutex
	dials int
	pipes []net.Conn
}

func (ms *memServer) dial(ctx context.Context, cfg ServerConfig) (sdk.Transport, error) {
	c1, c2 := net.Pipe()
	var once sync.Once
	srv := newFixtureServer(func() { once.Do(func() { c1.Close() }) })
	if _, err := srv.Connect(ctx, &sdk.IOTransport{Reader: c1, Writer: c1}, nil); err != nil {
		return nil, err
	}
	ms.mu.Lock()
	ms.dials++
	ms.pipes = append(ms.pipes, c1)
	ms.mu.Unlock()
	return &sdk.IOTransport{Reader: c2, Writer: c2}, nil
}

func (ms *memServer) dialCount() int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.dials
}

// newWorkspace returns a workspace over an empty temporary directory.
func newWorkspace(t testing.TB) *tools.Workspace {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// newMemManager returns a Manager with one in-process fixture server named
// name, closed when the test ends.
func newMemManager(t *testing.T, opts Options, names ...string) (*Manager, *memServer) {
	t.Helper()
	ms := &memServer{}
	if len(names) == 0 {
		names = []string{"fx"}
	}
	for _, n := range names {
		opts.Servers = append(opts.Servers, ServerConfig{Name: n, Command: "unused-in-memory", Timeout: 5 * time.Second})
	}
	if opts.Workspace == nil {
		opts.Workspace = newWorkspace(t)
	}
	opts.Dial = ms.dial
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, ms
}

// stdioServer is the config of the fixture run as a real child process.
func stdioServer(t testing.TB, name, mode string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: name, Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{fixtureEnv: mode}, Timeout: 10 * time.Second}
}
