package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the [mcp] section of tern's config files: the MCP servers of
// tier 3, one [mcp.servers.NAME] table each. A table in .tern.toml
// replaces the user file's table of the same name as a whole, so
// `enabled = false` alone switches a user's server off for one project.
type Config struct {
	Servers map[string]ServerTable `toml:"servers"`
	// sources maps a server's name to the file that configured it last.
	sources map[string]string
}

// ServerTable is one [mcp.servers.NAME] table as written; Config.List
// checks it and makes it a ServerConfig.
type ServerTable struct {
	// The program that speaks MCP on stdin and stdout, started in the
	// workspace root (give `command` or `url`, not both).
	Command string `toml:"command"`
	// The program's arguments.
	Args []string `toml:"args"`
	// Variables added to tern's environment for the program; values may
	// name tern's own as `$VAR` or `${VAR}` (`$$` is a literal `$`).
	Env map[string]string `toml:"env"`
	// A streamable HTTP endpoint to reach the server at instead of
	// starting a program.
	URL string `toml:"url"`
	// Headers sent with every HTTP request, such as `Authorization`;
	// values may name variables as in `env`.
	Headers map[string]string `toml:"headers"`
	// `false` keeps the server off (default `true`).
	Enabled *bool `toml:"enabled"`
	// Bounds the server's start and each call (default `"60s"`).
	Timeout duration `toml:"timeout"`
}

// duration reads "30s"-style TOML strings.
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// NoteSources records path as the source of the servers its file defines
// or changes, whether as a table ([mcp.servers.x]), by dotted keys
// (mcp.servers.x.command = …) or inline.
func (c *Config) NoteSources(md toml.MetaData, path string) {
	for _, key := range md.Keys() {
		if len(key) >= 3 && key[0] == "mcp" && key[1] == "servers" {
			if c.sources == nil {
				c.sources = map[string]string{}
			}
			c.sources[key[2]] = path
		}
	}
}

// Source is the file that configured the server name last ("" when
// unknown).
func (c Config) Source(name string) string { return c.sources[name] }

// List returns the configured servers in name order, checked: an entry
// that could not work is an error naming its file and table.
func (c Config) List() ([]ServerConfig, error) {
	var out []ServerConfig
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		s := c.Servers[name]
		sc := ServerConfig{
			Name:    name,
			Command: s.Command,
			Args:    s.Args,
			Env:     s.Env,
			URL:     s.URL,
			Headers: s.Headers,
			Enabled: s.Enabled,
			Timeout: s.Timeout.Duration,
			Source:  c.sources[name],
		}
		if err := sc.Validate(); err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// ServerStartTool prefixes the server's name in the Tool of the approval
// asked before a repository's server starts (ProjectGate's ask), so that
// an approver tells a server start apart from a call of the model's.
const ServerStartTool = "mcp_server_"

// ProjectGate is a BeforeStart that asks before starting a server the
// repository's own config file (project) configures: opening a repository
// must not be enough to run the programs it chooses. Servers of the
// user's own config start freely. ask puts the question to the user and
// returns whether the server may start and, when not, why ("" for no
// reason); a nil ask (nobody to ask) refuses.
func ProjectGate(project string, ask func(context.Context, ServerConfig) (allow bool, reason string, err error)) func(context.Context, ServerConfig) error {
	return func(ctx context.Context, sc ServerConfig) error {
		if sc.Source != project {
			return nil
		}
		if ask == nil {
			return errors.New("it is configured by this repository's .tern.toml and nobody can approve starting it")
		}
		allow, reason, err := ask(ctx, sc)
		switch {
		case err != nil:
			return err
		case !allow && reason != "":
			return fmt.Errorf("this repository's .tern.toml names it, and starting it was not approved: %s", reason)
		case !allow:
			return errors.New("this repository's .tern.toml names it, and starting it was not approved")
		}
		return nil
	}
}
