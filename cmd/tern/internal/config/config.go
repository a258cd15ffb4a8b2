// Package config is tern's configuration: the Config type, where its
// files are (the user's, and a project's .tern.toml), how they are read
// and merged so that a repository never grants itself more than the user
// did, the environment's part, the flags' checks and precedence (Flags),
// and the checks of every value. cmd/tern says which flags were given.
//
// The configuration reference, docs/configuration.md, is generated from
// the doc comments of Config and of its tables' types (go generate
// ./cmd/tern/internal/config; TestConfigReference fails on drift).
//
// It imports the packages whose settings it holds (agent's defaults,
// disclosure's tiers, models' profiles, tools/mcp's servers,
// models/ollama's stream limits), never cmd/tern.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools/lsp"
	"github.com/ternhq/tern/tools/mcp"
)

//go:generate go test -run ^TestConfigReference$ . -args -update

// Config is tern's configuration. Values come, lowest precedence first,
// from defaults, the user file ($XDG_CONFIG_HOME/tern/config.toml), the
// project file (.tern.toml at the workspace root), the environment
// (TERN_MODEL, OLLAMA_HOST) and flags.
//
// The doc comment of each field with a toml key is its row in the
// configuration reference, which TestConfigReference keeps in step (go
// generate ./cmd/tern/internal/config rewrites it): write it for the
// user. So is every field of the types of its tables ([stream], …).
type Config struct {
	// The model to chat with. Default: `$TERN_MODEL`, else the best
	// installed model with tool support (`--model`).
	Model string `toml:"model"`
	// Ollama's address. Default: `$OLLAMA_HOST`, else `127.0.0.1:11434`
	// (`--host`).
	Host string `toml:"host"`
	// Which server serves the model: `auto` (ask the address given what it
	// is), `ollama`, or `openai` for an OpenAI-compatible server
	// (llama-server, LM Studio, vLLM) (`--backend`).
	Backend string `toml:"backend"`
	// The address of an OpenAI-compatible server, such as
	// `http://127.0.0.1:8080`.
	BaseURL string `toml:"base_url"`
	// The address of the OpenAI-compatible server that serves embeddings,
	// when it is another than `base_url` (a second llama-server started
	// with `--embeddings`).
	EmbedBaseURL string `toml:"embed_base_url"`
	// apiKey comes from TERN_API_KEY or OPENAI_API_KEY, never from a file
	// (ApplyEnv); hostFlag is set when --host was given (SetHost).
	apiKey   string
	hostFlag bool

	// The context window in tokens; 0 plans the largest that fits in
	// `vram` (`--ctx`).
	Ctx int `toml:"ctx"`
	// GPU memory in GiB to plan the window for; without it tern asks
	// nvidia-smi, else plans for 8 (`--vram`).
	VRAMGiB float64 `toml:"vram"`
	// System RAM in GiB free for the weights that stay off the GPU (a
	// mixture of experts' experts); without it tern reads what the system
	// reports available (Linux) (`--ram`).
	RAMGiB float64 `toml:"ram"`
	// The most model requests per prompt (`--max-turns`).
	MaxTurns int `toml:"max_turns"`
	// The embedding model `tern index` builds vectors with; search uses the
	// index's own model.
	EmbedModel string `toml:"embed_model"`
	// Thinking: `""` (off), `"true"`, or a level such as `"low"`.
	Think string `toml:"think"`
	// How long Ollama keeps the model loaded after a request.
	KeepAlive Duration `toml:"keep_alive"`
	// Directories outside the workspace that tools may read
	// (`--allow-read`).
	AllowRead []string `toml:"allow_read"`
	// The sampling temperature; unset, the model family's recommended one.
	Temperature *float64 `toml:"temperature"`
	// How tools reach the model: `auto` (native when the model has the
	// tools capability), `native`, `text` or `constrained` (text, with
	// replies held to a JSON schema) (`--tool-mode`).
	ToolMode string `toml:"tool_mode"`
	// The tool tier new sessions start at (`--tier`).
	Tier int `toml:"tier"`
	// The highest tier a session may unlock; 0 makes sessions read-only
	// (`--max-tier`).
	MaxTier int `toml:"max_tier"`
	// Command patterns that run without asking, such as `"go test *"`.
	AllowCommands []string `toml:"allow_commands"`
	// Command patterns that never run, such as `"git push*"`.
	DenyCommands []string `toml:"deny_commands"`
	// Words that unlock tiers from a prompt, added to or (with a leading
	// `-`) removed from the built-in lists (`[intent]`, below).
	Intent disclosure.Overrides `toml:"intent"`

	// The share of the window past which the conversation is compacted
	// before a request; 1 never compacts.
	CompactThreshold float64 `toml:"compact_threshold"`

	// Adds the code that matches each prompt to it (tern ask, and the
	// TUI's start; `--rag`).
	RAG bool `toml:"rag"`
	// The share of the window that code may take (0.05 to 0.5).
	RAGShare float64 `toml:"rag_share"`

	// Caps a reply's thinking, in tokens, when think is on; 0 is half the
	// reply reserve.
	ThinkBudget int `toml:"think_budget"`
	// Overrides of the built-in model family profiles, keyed by a model
	// name (`qwen3:8b`), a prefix of one (`qwen3:`) or a profile name
	// (`[profiles.NAME]`, below).
	Profiles map[string]models.ProfileOverride `toml:"profiles"`

	// Runs explore's helper on another installed model, with its own
	// window; `""` uses the session's.
	SubagentModel string `toml:"subagent_model"`
	// The share of the window explore's helper may fill (0.1 to 1).
	ExploreShare float64 `toml:"explore_share"`
	// The helper's most model requests (1 to 50).
	ExploreTurns int `toml:"explore_turns"`

	// A larger model that takes over a turn when the model gets stuck, or
	// when asked (`/escalate`, `tern ask --escalate`), with its own
	// window; the model resumes after the turn. An installed model, or
	// one on `escalate_host`.
	EscalateModel string `toml:"escalate_model"`
	// The server of `escalate_model` when it is not the model's own:
	// another Ollama, or an OpenAI-compatible server such as a second
	// llama-server.
	EscalateHost string `toml:"escalate_host"`

	// The MCP servers whose tools join tier 3 (`[mcp.servers.NAME]`; see
	// Tier 3: MCP servers and the web).
	MCP mcp.Config `toml:"mcp"`

	// Runs language servers, which check each edit and answer the
	// definition and references tools; false checks edits for syntax
	// only.
	LSPEnabled bool `toml:"lsp_enabled"`
	// How long an edit waits for its language server's diagnostics
	// before it reports the syntax check's alone.
	LSPWait Duration `toml:"lsp_wait"`
	// The language servers, a `[lsp.NAME]` table per language (below);
	// without tables, gopls, pyright-langserver (or pylsp),
	// typescript-language-server, rust-analyzer and clangd run when they
	// are on PATH.
	LSP map[string]lsp.ServerTable `toml:"lsp"`

	// Limits that keep a stalled server from hanging tern (`[stream]`,
	// below).
	Stream Stream `toml:"stream"`

	// Hosts (`"host"` or `"host:port"`) fetch_url may reach although they
	// resolve to loopback, private or other special addresses.
	FetchAllow []string `toml:"fetch_allow"`

	// How the kernel confines commands: where they may write, what they
	// cannot read, the network (`[sandbox]`, below).
	Sandbox Sandbox `toml:"sandbox"`

	// notices say what of the project file was ignored, and why
	// (Notices).
	notices []string
}

// Default is the configuration before any file, variable or flag.
func Default() Config {
	return Config{
		VRAMGiB:    8,
		MaxTurns:   25,
		EmbedModel: "nomic-embed-text",
		KeepAlive:  Duration{30 * time.Minute},
		ToolMode:   "auto",
		Backend:    BackendAuto,
		MaxTier:    int(disclosure.External),
		LSPEnabled: true,
		LSPWait:    Duration{lsp.DefaultWait},

		CompactThreshold: agent.DefaultCompactAt,
		RAGShare:         agent.DefaultRAGShare,
		ExploreShare:     agent.DefaultExploreShare,
		ExploreTurns:     agent.DefaultExploreTurns,
		Sandbox:          DefaultSandbox(),
	}
}

// Duration reads "30m"-style TOML strings.
type Duration struct{ time.Duration }

// UnmarshalText reads a duration as time.ParseDuration does.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// UserPath is where the user's config file lives: "" when neither
// XDG_CONFIG_HOME nor HOME is set.
func UserPath(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "tern", "config.toml")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "tern", "config.toml")
	}
	return ""
}

// ProjectPath is the project's config file in the workspace at root.
func ProjectPath(root string) string { return filepath.Join(root, ".tern.toml") }

// Paths are the config files tern reads, the user's first.
func Paths(root string, getenv func(string) string) []string {
	var out []string
	if p := UserPath(getenv); p != "" {
		out = append(out, p)
	}
	return append(out, ProjectPath(root))
}

// Load merges the user and project files over the defaults. A file
// that does not exist is skipped; one that does not parse, names a key
// tern does not know or holds a value of the wrong type or out of range
// is an error naming the file and every problem in it (FileError; each
// unknown key with the known key it was probably meant as), both files'
// problems together.
func Load(root string, getenv func(string) string) (Config, []string, error) {
	cfg, read, problems := loadFiles(root, getenv)
	return cfg, read, errors.Join(problems...)
}

// LoadLenient loads the config as Load does, but a file with
// a problem is left out instead of stopping: the config is what the
// remaining files make, and problems lists every file's problems, each
// naming its file. tern doctor reports them and goes on.
func LoadLenient(root string, getenv func(string) string) (cfg Config, read []string, problems []error) {
	return loadFiles(root, getenv)
}

// loadFiles reads the user's file, then the project's, leaving out a
// file with problems; each file's problems are found all at once.
func loadFiles(root string, getenv func(string) string) (Config, []string, []error) {
	cfg := Default()
	var read []string
	var problems []error
	project := ProjectPath(root)
	for _, path := range []string{UserPath(getenv), project} {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("read config: %w", err))
			continue
		}
		// The user's file is decoded over the defaults; the project's on
		// its own, then merged so that it cannot widen trust.
		next := cfg
		into := &next
		var proj Config
		if path == project {
			into = &proj
		}
		md, bad, err := decodeFile(string(data), into)
		if err != nil {
			bad = []string{tomlProblem(err)}
		} else {
			if path == project {
				next.mergeProject(proj, md, path)
			} else {
				next.MCP.NoteSources(md, path)
			}
			for _, err := range checkConfig(next) {
				bad = append(bad, err.Error())
			}
		}
		if len(bad) > 0 {
			problems = append(problems, FileError{Path: path, Problems: bad})
			continue
		}
		cfg = next
		read = append(read, path)
	}
	return cfg, read, problems
}
