package doctor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// checkup is one doctor run on a fresh workspace, with no config file
// unless the test writes one.
type checkup struct {
	env  Env
	out  bytes.Buffer
	xdg  string
	edit func(*config.Config) // the "flags"
}

func newCheckup(t *testing.T, edit func(*config.Config)) *checkup {
	t.Helper()
	c := &checkup{xdg: t.TempDir(), edit: edit}
	c.env = Env{
		Root: t.TempDir(),
		Getenv: func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return c.xdg
			}
			return ""
		},
		Out: &c.out,
		Configure: func(cfg config.Config) (config.Config, error) {
			if c.edit != nil {
				c.edit(&cfg)
			}
			return cfg, nil
		},
		VRAM: func(context.Context, config.Config) int64 { return 8 << 30 },
		MCP: func(cfg config.Config, ws *tools.Workspace) (*mcp.Manager, error) {
			servers, err := cfg.MCP.List()
			if err != nil || len(servers) == 0 {
				return nil, err
			}
			return mcp.NewManager(mcp.Options{Servers: servers, Workspace: ws})
		},
	}
	return c
}

// write writes a file of the workspace (or, with a leading "~/", of the
// user's config directory).
func (c *checkup) write(t *testing.T, name, content string) {
	t.Helper()
	path := filepath.Join(c.env.Root, name)
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		path = filepath.Join(c.xdg, "tern", rest)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs doctor and returns its report.
func (c *checkup) run(t *testing.T) (string, error) {
	t.Helper()
	err := Run(t.Context(), c.env)
	return c.out.String(), err
}

// lines checks that report holds each line of want, whole, in order.
func lines(t *testing.T, report string, want ...string) {
	t.Helper()
	rest := report
	for _, w := range want {
		i := strings.Index(rest, w+"\n")
		if i < 0 || i > 0 && rest[i-1] != '\n' {
			t.Errorf("the report lacks the line %q (after the ones before it):\n%s", w, report)
			return
		}
		rest = rest[i+len(w)+1:]
	}
}

// TestOllamaAllWell: with a chat model and an embedding model installed,
// every check passes and the plan shows its arithmetic for the VRAM the
// program gives.
func TestOllamaAllWell(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host = srv.URL() })
	report, err := c.run(t)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	lines(t, report,
		"Ollama      ✓ "+srv.URL()+" (version 0.17.4)",
		"Models      ✓ 2 installed",
		"              qwen3:8b                       4.9 GB  qwen3        8.2B  tools thinking",
		"Chat model  ✓ qwen3:8b (best installed model with tool support)",
		"Profile     ✓ qwen3: prompt qwen, text calls tagged, temperature 0.6",
		"Tools       ✓ native tool calls (repaired when written as text; a retry in text on Ollama's tool-parse errors)",
		"Context     ✓ 12288 tokens (planned)",
		"              VRAM 8.0 GiB − weights 5.9 GiB = 2.1 GiB left for the KV cache",
		"Embeddings  ✓ nomic-embed-text:latest",
		"Workspace   ✓ "+c.env.Root+" (directory)",
		"Notes       · no AGENTS.md; project notes there are added to every prompt",
		"Sessions    · none yet",
		"Index       · not built; run `tern index` for tern search, search_code and RAG",
		"MCP         · no servers configured; tier 3 offers fetch_url only ([mcp.servers.NAME] in .tern.toml adds servers)",
		"",
		"All checks passed.",
	)
}

// TestNoServer: nothing answers. The report says how to start Ollama,
// still checks the workspace, and doctor fails.
func TestNoServer(t *testing.T) {
	t.Parallel()
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host = "127.0.0.1:1" })
	c.write(t, "AGENTS.md", "Run go test.\n")
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v, want ErrProblems\n%s", err, report)
	}
	lines(t, report,
		"Ollama      ✗ not reachable at http://127.0.0.1:1",
		"              start it with `ollama serve` (or open the Ollama app), or set --host / OLLAMA_HOST",
		"Workspace   ✓ "+c.env.Root+" (directory)",
		"Notes       ✓ AGENTS.md (12 bytes)",
	)
	if strings.Contains(report, "All checks passed") {
		t.Errorf("a failed check, yet:\n%s", report)
	}
}

// TestNotOllama: an OpenAI-compatible server where --backend ollama says
// Ollama is: the report names the flag that fixes it.
func TestNotOllama(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t)
	c := newCheckup(t, func(cfg *config.Config) { cfg.Backend, cfg.Host = config.BackendOllama, srv.URL() })
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	if !strings.Contains(report, "is not Ollama (/api/version: ") || !strings.Contains(report, "pass --backend openai") {
		t.Errorf("the report does not say the server is not Ollama:\n%s", report)
	}
}

// TestNoChatModel: only an embedding model is installed.
func TestNoChatModel(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.NomicEmbed()))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host = srv.URL() })
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	lines(t, report, "Chat model  ✗ no chat model is installed in Ollama at "+srv.URL()+": run `ollama pull qwen3:8b` (or another model with tool support)")
}

// TestBrokenConfigFilesAreLeftOut: each problem of each file is a failed
// check, and the checks after go on without those files.
func TestBrokenConfigFilesAreLeftOut(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host = srv.URL() })
	c.write(t, "~/config.toml", "max_turns = 5\n")
	c.write(t, ".tern.toml", "modle = \"x\"\nmax_turn = 3\n")
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	user := filepath.Join(c.xdg, "tern", "config.toml")
	lines(t, report,
		"Config      ✗ "+filepath.Join(c.env.Root, ".tern.toml")+": 2 problems",
		`              unknown key "modle" (did you mean "model"?)`,
		`              unknown key "max_turn" (did you mean "max_turns"?)`,
		"              the checks below use "+user+" and leave out the files above",
		"              tern ask and the TUI refuse to start until they are fixed",
		"Ollama      ✓ "+srv.URL()+" (version 0.17.4)",
	)
}

// TestAFlagsWrongValueStops: the program's own check of the flags stops
// doctor with its error, before any server is asked, and doctor does not
// claim that all checks passed (it used to).
func TestAFlagsWrongValueStops(t *testing.T) {
	t.Parallel()
	c := newCheckup(t, nil)
	bad := errors.New("--tier 3 is above --max-tier 1")
	c.env.Configure = func(config.Config) (config.Config, error) { return config.Config{}, bad }
	report, err := c.run(t)
	if err != bad || report != "" {
		t.Errorf("doctor: %v, report %q; want the flags' error and no report", err, report)
	}
}

// TestOpenAIServer: an OpenAI-compatible server's report: what it is, the
// window it serves, tools and usage, and embeddings from embed_base_url.
func TestOpenAIServer(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithFlavor(openaitest.LlamaServer))
	embed := openaitest.New(t, openaitest.WithEmbeddings("nomic-embed-text", 768))
	c := newCheckup(t, func(cfg *config.Config) { cfg.BaseURL, cfg.EmbedBaseURL = srv.URL(), embed.URL() })
	report, err := c.run(t)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	for _, want := range []string{
		"Server      ✓ llama-server", "(OpenAI-compatible API)\n",
		"Models      ✓ 1 served\n",
		"Chat model  ✓ " + srv.Model() + " (",
		"Context     ✓ 8192 tokens (",
		"Tools       ✓ the server takes native tool calls",
		"Usage       ✓ the server reports token usage",
		"Embeddings  ✓ nomic-embed-text at ",
		"All checks passed.",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}

	// Without tools, usage or a window the server says, each is told with
	// its fix.
	bare := openaitest.New(t, openaitest.WithFlavor(openaitest.VLLM), openaitest.WithoutTools(), openaitest.WithoutUsage(), openaitest.WithHiddenWindow())
	c = newCheckup(t, func(cfg *config.Config) { cfg.BaseURL = bare.URL() })
	report, err = c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	for _, want := range []string{
		"Context     ✗ vLLM at ", "pass --ctx N (vLLM's --max-model-len)",
		"Tools       · the server refused tools", "--enable-auto-tool-choice",
		"Usage       · the server reports no token usage",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// TestMCPServerThatDoesNotStart: the report names the server, its command
// and the error; doctor fails.
func TestMCPServerThatDoesNotStart(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	c := newCheckup(t, func(cfg *config.Config) { cfg.Host = srv.URL() })
	c.write(t, "~/config.toml", "[mcp.servers.docs]\ncommand = \"/nonexistent/docs-server\"\n")
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	if !strings.Contains(report, "MCP         ✗ docs: ") || !strings.Contains(report, "/nonexistent/docs-server") {
		t.Errorf("the report does not say the server failed to start:\n%s", report)
	}
}

func TestAgo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Second, "just now"}, {5 * time.Minute, "5 min ago"}, {3 * time.Hour, "3 h ago"}, {72 * time.Hour, "3 days ago"},
	} {
		if got := ago(tt.d); got != tt.want {
			t.Errorf("ago(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestSandboxLine: doctor says what confines commands: nothing when the
// sandbox is off (a failed check when it is required), and bubblewrap,
// proved by a confined write outside the workspace, where it works.
func TestSandboxLine(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	for _, c := range []struct {
		name       string
		sandbox    config.Sandbox
		line       string
		problems   bool
		bubblewrap bool
	}{
		{"off", config.Sandbox{Mechanism: "off", Network: true}, `Sandbox     · none: commands run unconfined, judged by their text alone (the sandbox is off ([sandbox] mechanism = "off"))`, false, false},
		{"required", config.Sandbox{Mechanism: "off", Required: true, Network: true}, `Sandbox     ✗ none, and [sandbox] required = true: commands will not run (the sandbox is off ([sandbox] mechanism = "off"))`, true, false},
		{"bubblewrap", config.Sandbox{Mechanism: "bubblewrap", Network: false}, "Sandbox     ✓ commands confined by bubblewrap", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.bubblewrap {
				testenv.Program(t, "bwrap", "apt-get install bubblewrap")
			}
			ck := newCheckup(t, func(cfg *config.Config) { cfg.Host = srv.URL(); cfg.Sandbox = c.sandbox })
			report, err := ck.run(t)
			if !strings.Contains(report, "\n"+c.line) {
				t.Errorf("the report lacks %q:\n%s", c.line, report)
			}
			if c.problems != errors.Is(err, ErrProblems) {
				t.Errorf("err = %v; problems want %v", err, c.problems)
			}
		})
	}
}

// TestLlamaServerStillLoading: a llama-server that is still loading its
// model lists it but answers everything else 503 "Loading model"; doctor
// says so, not that the server hides its window (which it will say once
// loaded) or that tools failed.
func TestLlamaServerStillLoading(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithLoading())
	c := newCheckup(t, func(cfg *config.Config) { cfg.BaseURL = srv.URL() })
	report, err := c.run(t)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	if !strings.Contains(report, "Server      ✗ the server at "+srv.URL()+" is still loading its model") {
		t.Errorf("the report does not say the model is loading:\n%s", report)
	}
	if !strings.Contains(report, "Workspace   ✓ ") {
		t.Errorf("the checks that need no model server were left out:\n%s", report)
	}
	for _, wrong := range []string{"does not say its context window", "pass --ctx", "Tools "} {
		if strings.Contains(report, wrong) {
			t.Errorf("the report says %q of a server that is loading:\n%s", wrong, report)
		}
	}
}

// TestOpenAIServerByHostAlone: --host naming an OpenAI-compatible server
// does not switch the code index to it (docs/backends.md); the
// embeddings line says so and how to switch it, not to `ollama pull`
// into a server that is not Ollama.
func TestOpenAIServerByHostAlone(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithEmbeddings("nomic-embed-text", 768))
	c := newCheckup(t, func(cfg *config.Config) { cfg.SetHost(srv.URL()) })
	report, _ := c.run(t)
	lines(t, report, "Server      ✓ llama-server b6710-74b8fc17 at "+srv.URL()+" (OpenAI-compatible API)")
	if strings.Contains(report, "ollama pull") || !strings.Contains(report, `Embeddings  · --host alone does not switch the code index to this server: set base_url = "`+srv.URL()+`"`) {
		t.Errorf("the embeddings line is wrong for a server named by --host alone:\n%s", report)
	}
}
