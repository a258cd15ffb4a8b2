package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models"
)

// Config is tern's configuration. Values come, lowest precedence first,
// from defaults, the user file ($XDG_CONFIG_HOME/tern/config.toml), the
// project file (.tern.toml at the workspace root), the environment
// (TERN_MODEL, OLLAMA_HOST) and flags.
type Config struct {
	Model string `toml:"model"`
	Host  string `toml:"host"`
	// Backend is "auto", "ollama" or "openai" (an OpenAI-compatible
	// server: llama-server, LM Studio, vLLM); BaseURL is that server's
	// address, and EmbedBaseURL the one that serves embeddings when it is
	// another (a second llama-server started with --embeddings).
	Backend      string `toml:"backend"`
	BaseURL      string `toml:"base_url"`
	EmbedBaseURL string `toml:"embed_base_url"`
	// apiKey comes from TERN_API_KEY or OPENAI_API_KEY, never from a file;
	// hostFlag is set when --host was given.
	apiKey   string
	hostFlag bool

	Ctx        int      `toml:"ctx"`
	VRAMGiB    float64  `toml:"vram"`
	MaxTurns   int      `toml:"max_turns"`
	EmbedModel string   `toml:"embed_model"`
	Think      string   `toml:"think"`
	KeepAlive  duration `toml:"keep_alive"`
	AllowRead  []string `toml:"allow_read"`
	// Temperature, when set, overrides the model's default.
	Temperature *float64 `toml:"temperature"`
	// ToolMode is "auto" (native when the model has the tools capability),
	// "native" or "text".
	ToolMode string `toml:"tool_mode"`
	// Tier is the tool tier a new session starts at; MaxTier caps it.
	Tier    int `toml:"tier"`
	MaxTier int `toml:"max_tier"`
	// AllowCommands run without approval; DenyCommands never run.
	AllowCommands []string `toml:"allow_commands"`
	DenyCommands  []string `toml:"deny_commands"`
	// Intent adds words to (or, with a leading "-", removes them from) the
	// lists that unlock tiers from the user's prompt.
	Intent disclosure.Overrides `toml:"intent"`

	// CompactThreshold is the share of the context window past which the
	// conversation is compacted before a request; 1 turns that off.
	CompactThreshold float64 `toml:"compact_threshold"`

	// RAG adds the repository code that matches each prompt to it;
	// RAGShare is the share of the window that code may take.
	RAG      bool    `toml:"rag"`
	RAGShare float64 `toml:"rag_share"`

	// ThinkBudget caps a reply's thinking, in tokens, when think is on
	// (0: half the reply reserve).
	ThinkBudget int `toml:"think_budget"`
	// Profiles override the built-in model family profiles, keyed by a
	// model name ("qwen3:8b"), a prefix of one ("qwen3:") or a profile
	// name ("qwen3").
	Profiles map[string]models.ProfileOverride `toml:"profiles"`

	// SubagentModel, when set, runs explore's subagents on another
	// installed model (with its own window); ExploreShare is the share of
	// the window a subagent's prompts may fill and ExploreTurns caps its
	// model requests.
	SubagentModel string  `toml:"subagent_model"`
	ExploreShare  float64 `toml:"explore_share"`
	ExploreTurns  int     `toml:"explore_turns"`

	// MCP holds the MCP servers of tier 3 ([mcp.servers.NAME]).
	MCP mcpConfig `toml:"mcp"`

	// Stream bounds each reply stream ([stream]).
	Stream streamConfig `toml:"stream"`

	// FetchAllow names the hosts ("host" or "host:port") fetch_url may
	// reach although they resolve to loopback, private or other special
	// addresses. Only the user's own config file can set it.
	FetchAllow []string `toml:"fetch_allow"`

	// notices say what of the project file was ignored, and why.
	notices []string
}

func defaultConfig() Config {
	return Config{
		VRAMGiB:    8,
		MaxTurns:   25,
		EmbedModel: "nomic-embed-text",
		KeepAlive:  duration{30 * time.Minute},
		ToolMode:   "auto",
		Backend:    backendAuto,
		MaxTier:    int(disclosure.External),

		CompactThreshold: agent.DefaultCompactAt,
		RAGShare:         agent.DefaultRAGShare,
		ExploreShare:     agent.DefaultExploreShare,
		ExploreTurns:     agent.DefaultExploreTurns,
	}
}

// duration reads "30m"-style TOML strings.
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// userConfigPath is where the user's config file lives.
func userConfigPath(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "tern", "config.toml")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "tern", "config.toml")
	}
	return ""
}

// loadConfig merges the user and project files over the defaults. A file
// that does not exist is skipped; one that does not parse, names a key
// tern does not know or holds a value out of range is an error naming the
// file (every unknown key, with the known key it was probably meant as).
func loadConfig(root string, getenv func(string) string) (Config, []string, error) {
	cfg, read, problems := loadConfigFiles(root, getenv, false)
	if len(problems) > 0 {
		return cfg, read, problems[0]
	}
	return cfg, read, nil
}

// loadConfigLenient loads the config as loadConfig does, but a file with
// a problem is left out instead of stopping: the config is what the
// remaining files make, and problems lists every problem found, each
// naming its file. tern doctor reports them and goes on.
func loadConfigLenient(root string, getenv func(string) string) (cfg Config, read []string, problems []error) {
	return loadConfigFiles(root, getenv, true)
}

func loadConfigFiles(root string, getenv func(string) string, lenient bool) (Config, []string, []error) {
	cfg := defaultConfig()
	var read []string
	var problems []error
	project := filepath.Join(root, ".tern.toml")
	for _, path := range []string{userConfigPath(getenv), project} {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("read config: %w", err))
			if !lenient {
				return cfg, read, problems
			}
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
		md, err := toml.Decode(string(data), into)
		if err != nil {
			problems = append(problems, fmt.Errorf("config %s: %w", path, err))
			if !lenient {
				return cfg, read, problems
			}
			continue
		}
		bad := false
		if undecoded := md.Undecoded(); len(undecoded) > 0 {
			problems = append(problems, unknownKeys(path, undecoded))
			bad = true
		}
		if path == project {
			next.mergeProject(proj, md, path)
		} else {
			next.MCP.noteSources(md, path)
		}
		if err := checkConfig(next); err != nil {
			problems = append(problems, fmt.Errorf("config %s: %w", path, err))
			bad = true
		}
		if bad {
			if !lenient {
				return cfg, read, problems
			}
			continue
		}
		cfg = next
		read = append(read, path)
	}
	return cfg, read, problems
}

// checkConfig checks the values of a config made from the files.
func checkConfig(cfg Config) error {
	if !isOneOf(cfg.ToolMode, toolModes) {
		return fmt.Errorf("tool_mode must be %s, not %q%s", orList(toolModes), cfg.ToolMode, suggest(cfg.ToolMode, toolModes))
	}
	if err := checkBackend(cfg.Backend); err != nil {
		return fmt.Errorf("backend %w", err)
	}
	if err := checkTiers(cfg, "tier", "max_tier"); err != nil {
		return err
	}
	if err := checkValues(cfg, false); err != nil {
		return err
	}
	if _, err := cfg.MCP.servers(); err != nil {
		return err
	}
	if !(cfg.ExploreShare >= 0.1 && cfg.ExploreShare <= 1) {
		return fmt.Errorf("explore_share must be between 0.1 and 1 (a share of the context window), not %v", cfg.ExploreShare)
	}
	if cfg.ExploreTurns < 1 || cfg.ExploreTurns > 50 {
		return fmt.Errorf("explore_turns must be between 1 and 50, not %d", cfg.ExploreTurns)
	}
	return nil
}

// checkTiers checks the tier settings, naming them as the user wrote them.
func checkTiers(cfg Config, tierName, maxName string) error {
	for _, v := range []struct {
		name string
		n    int
	}{{tierName, cfg.Tier}, {maxName, cfg.MaxTier}} {
		if !disclosure.Tier(v.n).Valid() {
			return fmt.Errorf("%s must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not %d", v.name, v.n)
		}
	}
	if cfg.Tier > cfg.MaxTier {
		return fmt.Errorf("%s %d is above %s %d", tierName, cfg.Tier, maxName, cfg.MaxTier)
	}
	return nil
}

// checkBackend checks a backend setting.
func checkBackend(b string) error {
	switch b {
	case backendAuto, backendOllama, backendOpenAI:
		return nil
	}
	return fmt.Errorf("must be auto, ollama or openai, not %q", b)
}
