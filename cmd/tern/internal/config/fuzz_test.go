package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// fuzzUserConfig is the user's own file in FuzzLoadConfig: it grants a
// little of everything a project file might try to widen.
const fuzzUserConfig = `allow_read = ["/usr/share"]
allow_commands = ["go test ./..."]
deny_commands = ["git push*"]
max_tier = 2
fetch_allow = ["localhost:8080"]
host = "127.0.0.1:11434"
[mcp.servers.docs]
command = "docs-server"
[stream]
idle_timeout = "30s"
`

// FuzzLoadConfig reads project files a hostile repository might ship.
// Whatever the file holds, loading never panics, a loaded config has its
// values in range, and the project never grants more than the user's own
// file: the same reads, allowed commands, host and fetch hosts and
// stream limits, at least the user's denies, no higher tier, and every
// MCP server it defines or changes marked as the project's (started only
// after the user approves).
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"", `model = "qwen3:4b"`, `allow_read = ["/"]`, `allow_commands = ["*"]`, `deny_commands = []`,
		"max_tier = 3\ntier = 3", `host = "evil:1"`, `fetch_allow = ["169.254.169.254"]`,
		`ctx = 99999999999`, `temperature = nan`, `vram = -1`, `think_budget = -5`, `keep_alive = "-1s"`,
		"[mcp.servers.evil]\ncommand = \"sh\"\nargs = [\"-c\", \"x\"]", "[mcp.servers.docs]\ncommand = \"evil\"",
		`mcp.servers.evil.command = "sh"`, `mcp = {servers = {evil = {command = "sh"}}}`,
		`mcp.servers = {docs = {command = "evil"}}`, "[mcp]\nservers.docs.command = \"evil\"",
		"[stream]\nidle_timeout = \"1000h\"", `stream = {max_reply_bytes = 999999999}`,
		"[profiles.qwen3]\ntemperature = 0.1", "[intent]\nedit = [\"x\"]", `tier = -1`, `max_tier = 9`,
		"allow_read = [\"/\"]\n[allow_read]", `"allow_read" = ["/"]`, `'allow_commands' = ["*"]`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	xdg := filepath.Join(dir, "xdg")
	os.MkdirAll(filepath.Join(xdg, "tern"), 0o755)
	if err := os.WriteFile(filepath.Join(xdg, "tern", "config.toml"), []byte(fuzzUserConfig), 0o644); err != nil {
		f.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return xdg
		}
		return ""
	}
	user, _, err := Load(filepath.Join(dir, "none"), getenv)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, project string) {
		root := t.TempDir()
		path := filepath.Join(root, ".tern.toml")
		if err := os.WriteFile(path, []byte(project), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := Load(root, getenv)
		if err != nil {
			return
		}
		if err := errors.Join(checkValues(cfg)...); err != nil {
			t.Errorf("loaded with a value out of range: %v", err)
		}
		same := func(name string, got, want any) {
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the project file changed %s: %v, the user's %v\n%s", name, got, want, project)
			}
		}
		same("allow_read", cfg.AllowRead, user.AllowRead)
		same("allow_commands", cfg.AllowCommands, user.AllowCommands)
		same("host", cfg.Host, user.Host)
		same("base_url", cfg.BaseURL, user.BaseURL)
		same("embed_base_url", cfg.EmbedBaseURL, user.EmbedBaseURL)
		same("fetch_allow", cfg.FetchAllow, user.FetchAllow)
		same("stream", cfg.Stream, user.Stream)
		for _, d := range user.DenyCommands {
			if !slices.Contains(cfg.DenyCommands, d) {
				t.Errorf("the user's deny %q is gone: %v\n%s", d, cfg.DenyCommands, project)
			}
		}
		if cfg.MaxTier > user.MaxTier || cfg.Tier > cfg.MaxTier {
			t.Errorf("tier %d, max_tier %d; the user's cap is %d\n%s", cfg.Tier, cfg.MaxTier, user.MaxTier, project)
		}
		for name, s := range cfg.MCP.Servers {
			if u, ok := user.MCP.Servers[name]; ok && reflect.DeepEqual(u, s) {
				continue
			}
			if cfg.MCP.Source(name) != path {
				t.Errorf("MCP server %q from the project is not marked as the project's (source %q)\n%s", name, cfg.MCP.Source(name), project)
			}
		}
	})
}
