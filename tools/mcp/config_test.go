package mcp

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestServerConfigValidate(t *testing.T) {
	off := false
	tests := []struct {
		name string
		cfg  ServerConfig
		want string // substring of the error; "" for valid
	}{
		{"stdio", ServerConfig{Name: "gh", Command: "npx", Args: []string{"-y", "x"}, Env: map[string]string{"T": "1"}}, ""},
		{"http", ServerConfig{Name: "web", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "x"}}, ""},
		{"disabled without transport", ServerConfig{Name: "gh", Enabled: &off}, ""},
		{"no name", ServerConfig{Command: "x"}, "without a name"},
		{"name without letters", ServerConfig{Name: "--", Command: "x"}, "needs a letter or digit"},
		{"neither", ServerConfig{Name: "gh", Source: ".tern.toml"}, ".tern.toml [mcp.servers.gh]: set command (a program that speaks MCP on stdin/stdout) or url"},
		{"both", ServerConfig{Name: "gh", Command: "x", URL: "http://h"}, "set command or url, not both"},
		{"bad scheme", ServerConfig{Name: "gh", URL: "ftp://h/x"}, `url "ftp://h/x" is not an http:// or https:// address`},
		{"no host", ServerConfig{Name: "gh", URL: "http:///x"}, "is not an http://"},
		{"relative", ServerConfig{Name: "gh", URL: "localhost:8080"}, "is not an http://"},
		{"args on url", ServerConfig{Name: "gh", URL: "http://h", Args: []string{"x"}}, "args and env apply to command servers"},
		{"headers on command", ServerConfig{Name: "gh", Command: "x", Headers: map[string]string{"A": "b"}}, "headers apply to url servers"},
		{"negative timeout", ServerConfig{Name: "gh", Command: "x", Timeout: -time.Second}, "is negative"},
		{"an editor's", ServerConfig{Name: "gh", URL: "ftp://h/x", Source: "x.toml", Entry: `the editor's MCP server "gh"`}, `the editor's MCP server "gh": url "ftp://h/x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestNewManagerRejectsClashingServerNames(t *testing.T) {
	_, err := NewManager(Options{Workspace: newWorkspace(t), Servers: []ServerConfig{
		{Name: "git-hub", Command: "a"}, {Name: "git_hub", Command: "b"},
	}})
	if err == nil || !strings.Contains(err.Error(), `same prefix "git_hub"`) {
		t.Errorf("NewManager = %v, want a clash error", err)
	}
	if _, err := NewManager(Options{Workspace: newWorkspace(t), Servers: []ServerConfig{{Name: "x"}}}); err == nil {
		t.Error("NewManager accepted an invalid server")
	}
}

// TestPrefix: two servers clash when their tools' names would start
// alike, as NewManager finds them.
func TestPrefix(t *testing.T) {
	for name, want := range map[string]string{"git-hub": "git_hub", "GitHub": "git_hub", "--": ""} {
		if got := (ServerConfig{Name: name}).Prefix(); got != want {
			t.Errorf("Prefix of %q = %q, want %q", name, got, want)
		}
	}
}

func TestEnvironExpandsFromTernsEnvironment(t *testing.T) {
	m, err := NewManager(Options{
		Workspace: newWorkspace(t),
		Environ:   []string{"PATH=/bin", "GH_TOKEN=old", "GH_TOKEN=abc"},
		Servers: []ServerConfig{{Name: "gh", Command: "x", Env: map[string]string{
			"GITHUB_TOKEN": "${GH_TOKEN}", "MODE": "ro", "MISSING": "[$NOPE]", "PASS": "pa$$word",
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := m.servers[0].environ()
	want := []string{"PATH=/bin", "GH_TOKEN=old", "GH_TOKEN=abc", "GITHUB_TOKEN=abc", "MISSING=[]", "MODE=ro", "PASS=pa$word"}
	if !slices.Equal(got, want) {
		t.Errorf("environ = %q, want %q", got, want)
	}
}

func TestInstallHints(t *testing.T) {
	for cmd, want := range map[string]string{
		"npx": "Node.js", "/usr/bin/node": "Node.js", "uvx": "install uv", "python3": "Python",
		"docker": "Docker", "my-server": "install it or give its full path",
	} {
		if got := installHint(cmd); !strings.Contains(got, want) {
			t.Errorf("installHint(%q) = %q, want it to mention %q", cmd, got, want)
		}
	}
}
