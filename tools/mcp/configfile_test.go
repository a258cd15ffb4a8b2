package mcp

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// TestConfigFromFiles decodes [mcp.servers] tables the way tern's config
// files hold them: each server is named after its table and marked with
// the file that wrote it last, however the table is spelt, and List
// checks every entry in name order. A later table replaces an earlier
// one of the same name as a whole (here gh, switched off).
func TestConfigFromFiles(t *testing.T) {
	var file struct {
		MCP Config `toml:"mcp"`
	}
	decode := func(path, text string) {
		t.Helper()
		md, err := toml.Decode(text, &file)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		file.MCP.NoteSources(md, path)
	}
	decode("user.toml", "[mcp.servers.web]\nurl = \"https://example.com/mcp\"\ntimeout = \"5s\"\n[mcp.servers.gh]\ncommand = \"gh-mcp\"\nargs = [\"-v\"]\n")
	decode("project.toml", "mcp.servers.docs.command = \"sh\"\n[mcp.servers]\ngh.enabled = false\n")
	list, err := file.MCP.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		got = append(got, s.Name+" "+s.Source+" "+s.Transport())
	}
	want := []string{"docs project.toml stdio: sh", "gh project.toml neither command nor url", "web user.toml http: https://example.com/mcp"}
	if !slices.Equal(got, want) {
		t.Errorf("servers:\n got %q\nwant %q", got, want)
	}
	if list[1].On() || list[2].Timeout != 5*time.Second || file.MCP.Source("nope") != "" {
		t.Errorf("gh on=%v, web timeout %v, source of an unknown server %q", list[1].On(), list[2].Timeout, file.MCP.Source("nope"))
	}

	decode("project.toml", "[mcp.servers.bad]\nenabled = true\n")
	if _, err := file.MCP.List(); err == nil || err.Error() != "project.toml [mcp.servers.bad]: set command (a program that speaks MCP on stdin/stdout) or url (a streamable HTTP endpoint)" {
		t.Errorf("an entry that cannot work: %v", err)
	}
	if _, err := toml.Decode("[mcp.servers.x]\ntimeout = \"soon\"\n", &file); err == nil {
		t.Error("a timeout that is no duration decoded")
	}
}

// TestProjectGate: only a server of the repository's own file is asked
// about; a refusal, with or without a reason, and nobody to ask keep it
// off with a message that says why.
func TestProjectGate(t *testing.T) {
	project, user := ServerConfig{Name: "x", Source: "/repo/.tern.toml"}, ServerConfig{Name: "y", Source: "/home/u/config.toml"}
	answer := func(allow bool, reason string) func(context.Context, ServerConfig) (bool, string, error) {
		return func(context.Context, ServerConfig) (bool, string, error) { return allow, reason, nil }
	}
	tests := []struct {
		name string
		ask  func(context.Context, ServerConfig) (bool, string, error)
		sc   ServerConfig
		want string
	}{
		{"user's server", nil, user, ""},
		{"approved", answer(true, ""), project, ""},
		{"refused", answer(false, ""), project, "this repository's .tern.toml names it, and starting it was not approved"},
		{"refused, why", answer(false, "no --yes"), project, "this repository's .tern.toml names it, and starting it was not approved: no --yes"},
		{"nobody to ask", nil, project, "it is configured by this repository's .tern.toml and nobody can approve starting it"},
	}
	for _, tt := range tests {
		err := ProjectGate("/repo/.tern.toml", tt.ask)(t.Context(), tt.sc)
		if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
