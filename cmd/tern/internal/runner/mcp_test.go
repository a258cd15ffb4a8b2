package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

// approverFunc answers approvals with a func.
type approverFunc func(agent.Approval) agent.Decision

func (f approverFunc) Approve(_ context.Context, ap agent.Approval) (agent.Decision, error) {
	return f(ap), nil
}

// TestTrustGate: a server the repository's .tern.toml names starts only
// when the run's approver allows it, asked as a server start; headless
// without --yes refuses it and says why; nobody to ask refuses it; the
// user's own servers start without a question.
func TestTrustGate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := mcp.ServerConfig{Name: "fix", Command: "fixture", Source: config.ProjectPath(root)}
	user := mcp.ServerConfig{Name: "mine", Command: "mine", Source: filepath.Join(t.TempDir(), "config.toml")}

	err := trustGate(root, headless.Approver{})(t.Context(), project)
	want := "this repository's .tern.toml names it, and starting it was not approved: tern ask asks no questions, so it starts a server the repository configures only when run with --yes"
	if err == nil || err.Error() != want {
		t.Errorf("headless without --yes: %v\nwant %s", err, want)
	}
	if err := trustGate(root, headless.Approver{Yes: true})(t.Context(), project); err != nil {
		t.Errorf("headless with --yes: %v", err)
	}
	if err := trustGate(root, nil)(t.Context(), project); err == nil || !strings.Contains(err.Error(), "nobody can approve starting it") {
		t.Errorf("no approver: %v", err)
	}

	var asked []agent.Approval
	ask := approverFunc(func(ap agent.Approval) agent.Decision {
		asked = append(asked, ap)
		return agent.Decision{Allow: true}
	})
	if err := trustGate(root, ask)(t.Context(), user); err != nil || len(asked) != 0 {
		t.Errorf("the user's server: %v, %d questions", err, len(asked))
	}
	if err := trustGate(root, ask)(t.Context(), project); err != nil || len(asked) != 1 {
		t.Fatalf("the project's server, allowed: %v, %d questions", err, len(asked))
	}
	if ap := asked[0]; ap.Tool != mcp.ServerStartTool+"fix" || !ap.Once || !strings.Contains(ap.Preview, `Start the MCP server "fix" that this repository's .tern.toml configures`) {
		t.Errorf("asked %+v", ap)
	}
}

// TestNoMCPServers: with no server configured there is no manager to
// start or close.
func TestNoMCPServers(t *testing.T) {
	t.Parallel()
	m, err := NewMCP(t.TempDir(), config.Default(), nil, headless.Approver{})
	if m != nil || err != nil {
		t.Errorf("NewMCP = %v, %v; want nil, nil", m, err)
	}
}

// TestEditorMCPServers: the editor's servers run beside the config's,
// without the question a repository's servers need; one the config
// already names (enabled or not), a second of one name, and one that
// does not validate are left out, each with a notice that says why.
func TestEditorMCPServers(t *testing.T) {
	t.Parallel()
	off := false
	user := filepath.Join(t.TempDir(), "config.toml")
	cfg := []mcp.ServerConfig{
		{Name: "fix", Command: "fixture", Source: user},
		{Name: "quiet", Enabled: &off, Source: user},
	}
	ed := func(name, command string) mcp.ServerConfig {
		return mcp.ServerConfig{Name: name, Command: command, Entry: fmt.Sprintf("the editor's settings for MCP server %q", name)}
	}
	keep, notices := beside(cfg, []mcp.ServerConfig{
		ed("ed", "ed-mcp"), ed("Fix", "other"), ed("quiet", "q"), ed("ed", "again"), ed("--", "x"),
		{Name: "web", URL: "ftp://x", Entry: `the editor's settings for MCP server "web"`},
	})
	if len(keep) != 1 || keep[0].Command != "ed-mcp" {
		t.Errorf("kept %+v; want the first ed alone", keep)
	}
	want := []string{
		`the editor's MCP server "Fix" is not started: ` + user + ` names a server "fix" ([mcp.servers.fix]), which comes first`,
		`the editor's MCP server "quiet" is not started: ` + user + ` names a server "quiet" ([mcp.servers.quiet], disabled there), which comes first`,
		`the editor's MCP server "ed" is not started: the editor passed another server of that name`,
		`the editor's MCP server "--" is not started: its name needs a letter or digit, to prefix the names of its tools`,
		`the editor's settings for MCP server "web": url "ftp://x" is not an http:// or https:// address; the server is not started`,
	}
	if d := cmp.Diff(want, notices); d != "" {
		t.Errorf("notices (-want +got):\n%s", d)
	}

	if err := trustGate(t.TempDir(), headless.Approver{})(t.Context(), keep[0]); err != nil {
		t.Errorf("the editor's server needs consent headless: %v", err)
	}
	m, notices, err := newMCPManager(config.Default(), keep, newWorkspace(t), nil, nil)
	if err != nil || m == nil {
		t.Fatalf("newMCPManager with the editor's servers alone = %v, %v", m, err)
	}
	defer m.Close()
	if got := m.Servers(); len(got) != 1 || got[0].Name != "ed" {
		t.Errorf("servers = %+v", got)
	}
	if len(notices) != 1 || notices[0] != "the editor's MCP servers (ed) start beside your config's when the model first wants external tools (tier 3)" {
		t.Errorf("notices = %q", notices)
	}
	capped := config.Default()
	capped.MaxTier = 2
	m, notices, err = newMCPManager(capped, keep, newWorkspace(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if len(notices) != 1 || !strings.Contains(notices[0], "are not used: their tools are tier 3 (external), above this session's limit (--max-tier 2)") {
		t.Errorf("capped below tier 3: notices = %q", notices)
	}
}

func newWorkspace(t *testing.T) *tools.Workspace {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
