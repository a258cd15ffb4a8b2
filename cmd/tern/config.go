package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"
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
	// MCP holds the MCP servers of tier 3 ([mcp.servers.NAME]).
	MCP mcpConfig `toml:"mcp"`
}

func defaultConfig() Config {
	return Config{
		VRAMGiB:    8,
		MaxTurns:   25,
		EmbedModel: "nomic-embed-text",
		KeepAlive:  duration{30 * time.Minute},
		ToolMode:   "auto",
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
	if _, err := cfg.MCP.servers(); err != nil {
		return cfg, read, fmt.Errorf("config: %w", err)
	}
	return cfg, read, nil
}
