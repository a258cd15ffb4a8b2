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
	Model      string   `toml:"model"`
	Host       string   `toml:"host"`
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

	// MCP holds the MCP servers of tier 3 ([mcp.servers.NAME]).
	MCP mcpConfig `toml:"mcp"`

	// Stream bounds each reply stream ([stream]).
	Stream streamConfig `toml:"stream"`
}

func defaultConfig() Config {
	return Config{
		VRAMGiB:    8,
		MaxTurns:   25,
		EmbedModel: "nomic-embed-text",
		KeepAlive:  duration{30 * time.Minute},
		ToolMode:   "auto",
		MaxTier:    int(disclosure.External),

		CompactThreshold: agent.DefaultCompactAt,
		RAGShare:         agent.DefaultRAGShare,
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
// that does not exist is skipped; one that does not parse, or names a key
// tern does not know, is an error naming the file and the line.
func loadConfig(root string, getenv func(string) string) (Config, []string, error) {
	cfg := defaultConfig()
	var read []string
	for _, path := range []string{userConfigPath(getenv), filepath.Join(root, ".tern.toml")} {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return cfg, read, fmt.Errorf("read config: %w", err)
		}
		md, err := toml.Decode(string(data), &cfg)
		if err != nil {
			return cfg, read, fmt.Errorf("config %s: %w", path, err)
		}
		if undecoded := md.Undecoded(); len(undecoded) > 0 {
			return cfg, read, fmt.Errorf("config %s: unknown key %q", path, undecoded[0].String())
		}
		cfg.MCP.noteSources(md, path)
		read = append(read, path)
	}
	switch cfg.ToolMode {
	case "auto", "native", "text":
	default:
		return cfg, read, fmt.Errorf("config: tool_mode must be auto, native or text, not %q", cfg.ToolMode)
	}
	if err := checkTiers(cfg, "tier", "max_tier"); err != nil {
		return cfg, read, fmt.Errorf("config: %w", err)
	}
	if cfg.CompactThreshold < 0.2 || cfg.CompactThreshold > 1 {
		return cfg, read, fmt.Errorf("config: compact_threshold must be between 0.2 and 1 (a share of the context window), not %v", cfg.CompactThreshold)
	}
	if _, err := cfg.MCP.servers(); err != nil {
		return cfg, read, fmt.Errorf("config: %w", err)
	}
	if cfg.RAGShare < 0.05 || cfg.RAGShare > 0.5 {
		return cfg, read, fmt.Errorf("config: rag_share must be between 0.05 and 0.5 (a share of the context window), not %v", cfg.RAGShare)
	}
	return cfg, read, nil
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
