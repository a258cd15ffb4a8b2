package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/models/ollamatest"
)

// workspace is a temp workspace whose config points at a fake Ollama
// serving qwen3:8b (with tools) and a smaller model with tools.
func workspace(t *testing.T) (*ollamatest.Server, runner.Env) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.TinyTools()))
	cfg := config.Default()
	cfg.Host = srv.URL()
	return srv, runner.Env{
		Root:    t.TempDir(),
		Config:  cfg,
		Counter: budget.NewCounter,
		VRAM:    func(context.Context, config.Config) int64 { return 8 << 30 },
	}
}

// open opens a session and closes it at the end of the test.
func open(t *testing.T, w runner.Env, o runner.Options) *runner.Run {
	t.Helper()
	if o.Approver == nil {
		o.Approver = headless.Approver{}
	}
	r, err := runner.Open(t.Context(), w, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// answer runs one turn of r and returns the model's answer.
func answer(t *testing.T, r *runner.Run, prompt string) string {
	t.Helper()
	var got string
	if err := r.Agent().Run(t.Context(), prompt, func(e agent.Event) {
		if m, ok := e.(agent.Message); ok {
			got = m.Message.Content
		}
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestOpenNew: a new session on the best model with tools, at the
// configured tier, with an empty history, whose turns reach the model
// and are recorded in the store.
func TestOpenNew(t *testing.T) {
	t.Parallel()
	srv, w := workspace(t)
	r := open(t, w, runner.Options{})
	if r.SessionID() == "" || r.Conn().Info.Name != "qwen3:8b" || r.Conn().Why != "best installed model with tool support" {
		t.Errorf("session %q on %s (%s)", r.SessionID(), r.Conn().Info.Name, r.Conn().Why)
	}
	if r.Tools().Tier() != disclosure.Read || len(r.Agent().History()) != 0 {
		t.Errorf("tier %d, %d messages; want tier 0 and none", r.Tools().Tier(), len(r.Agent().History()))
	}
	if r.Workspace().Root() != w.Root {
		t.Errorf("workspace %s, want %s", r.Workspace().Root(), w.Root)
	}
	srv.Script(ollamatest.Reply{Content: "hello"})
	if got := answer(t, r, "hi"); got != "hello" {
		t.Errorf("answer %q, want hello", got)
	}
	s, err := r.Store().Get(t.Context(), r.SessionID())
	if err != nil || s.Model != "qwen3:8b" || s.Dir != w.Root {
		t.Errorf("stored session %+v, %v", s, err)
	}
	if got := len(srv.Requests()[0].Tools); got == 0 {
		t.Error("the first request offered no tools")
	}
}

// TestOpenResumed: a resumed session has its history back, and a notice
// when it continues with another model than it was started with.
func TestOpenResumed(t *testing.T) {
	t.Parallel()
	srv, w := workspace(t)
	first := open(t, w, runner.Options{})
	srv.Script(ollamatest.Reply{Content: "hello"})
	answer(t, first, "hi")
	id := first.SessionID()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	r := open(t, w, runner.Options{Resume: id, Model: ollamatest.TinyTools().Name})
	if r.SessionID() != id {
		t.Errorf("resumed %s, want %s", r.SessionID(), id)
	}
	if h := r.Agent().History(); len(h) != 2 || h[1].Content != "hello" {
		t.Errorf("history %+v; want the question and its answer", h)
	}
	want := "session " + id + " was started with qwen3:8b; continuing with " + r.Conn().Info.Name
	if !slices.Contains(r.Notices(), want) {
		t.Errorf("notices %q; want %q", r.Notices(), want)
	}

	suffix := id[len(id)-4:]
	if s, err := runner.Find(t.Context(), r.Store(), w.Root, suffix); err != nil || s.ID != id {
		t.Errorf("Find(%q) = %s, %v; want %s", suffix, s.ID, err, id)
	}
	_, err := runner.Open(t.Context(), w, runner.Options{Resume: "nosuch", Approver: headless.Approver{}})
	if err == nil || !strings.Contains(err.Error(), `no session "nosuch" in `+w.Root+"; list them with `tern sessions`") {
		t.Errorf("resuming an unknown session: %v", err)
	}
}

// TestTierOnResume: a resumed session keeps the tier it was moved to;
// --tier given (TierFlag) moves it to the configured tier instead.
func TestTierOnResume(t *testing.T) {
	t.Parallel()
	_, w := workspace(t)
	first := open(t, w, runner.Options{})
	if err := first.Tools().SetTier(t.Context(), disclosure.Edit, "test"); err != nil {
		t.Fatal(err)
	}
	id := first.SessionID()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	kept := open(t, w, runner.Options{Resume: id})
	if kept.Tools().Tier() != disclosure.Edit {
		t.Errorf("resumed at tier %d, want the session's 1", kept.Tools().Tier())
	}
	kept.Close()

	lowered := open(t, w, runner.Options{Resume: id, TierFlag: true})
	if lowered.Tools().Tier() != disclosure.Read {
		t.Errorf("resumed with --tier 0 at tier %d", lowered.Tools().Tier())
	}
	if n := strings.Join(lowered.Tools().Notices(), "; "); !strings.Contains(n, "tools lowered to tier 0 (read) — --tier") {
		t.Errorf("notices %q; want the tier lowered by --tier", n)
	}
}

// TestAcceptPlan: a plan made in plan mode, then accepted in the resumed
// session (tern ask --resume ID --accept-plan), unlocks tier 1, or the
// --tier given when it is higher; with no plan there is nothing to accept.
func TestAcceptPlan(t *testing.T) {
	t.Parallel()
	const plan = "Goal: main prints bonjour.\n1. Edit main.go: println(\"bonjour\")."
	tests := []struct {
		name     string
		tier     int
		tierFlag bool
		want     disclosure.Tier
	}{
		{name: "no --tier", want: disclosure.Edit},
		{name: "--tier 2", tier: 2, tierFlag: true, want: disclosure.Tier(2)},
		{name: "--tier 0", tier: 0, tierFlag: true, want: disclosure.Edit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, w := workspace(t)
			planning := open(t, w, runner.Options{Plan: true})
			if err := planning.AcceptPlan(t.Context(), "", func(agent.Event) {}); !errors.Is(err, agent.ErrNoPlan) {
				t.Errorf("accepting before a plan: %v, want ErrNoPlan", err)
			}
			srv.Script(ollamatest.Reply{Content: plan})
			answer(t, planning, "make main print bonjour")
			if planning.Tools().Tier() != disclosure.Read {
				t.Errorf("plan mode at tier %d", planning.Tools().Tier())
			}
			planning.Close()

			w.Config.Tier = tt.tier
			r := open(t, w, runner.Options{Resume: planning.SessionID(), TierFlag: tt.tierFlag})
			if r.Agent().ProposedPlan() != plan {
				t.Fatalf("the resumed session's plan is %q", r.Agent().ProposedPlan())
			}
			srv.Script(ollamatest.Reply{Content: "done"})
			if err := r.AcceptPlan(t.Context(), "", func(agent.Event) {}); err != nil {
				t.Fatal(err)
			}
			if r.Tools().Tier() != tt.want {
				t.Errorf("tier %d after the plan was accepted, want %d", r.Tools().Tier(), tt.want)
			}
			if last := srv.Requests()[len(srv.Requests())-1]; !strings.Contains(last.Messages[0].Content, "main prints bonjour") {
				t.Error("the accepted plan is not pinned in the system prompt")
			}
		})
	}
}

// TestProjectMCPServerRefusedHeadless: a session opens in a repository
// whose .tern.toml names an MCP server without starting it; headless
// without --yes, a turn that wants external tools does not start it
// either, and says why.
func TestProjectMCPServerRefusedHeadless(t *testing.T) {
	t.Parallel()
	srv, w := workspace(t)
	conf := "[mcp.servers.fix]\ncommand = \"/nonexistent/mcp-fixture\"\n"
	if err := os.WriteFile(filepath.Join(w.Root, ".tern.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg, _, err := config.Load(w.Root, func(k string) string {
		return map[string]string{"HOME": home, "XDG_CONFIG_HOME": home}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = srv.URL()
	w.Config = cfg
	r := open(t, w, runner.Options{})
	srv.Script(ollamatest.Reply{Content: "The project's weather server was not started, so there is no forecast."})
	var notices []string
	if err := r.Agent().Run(t.Context(), "look up online the weather forecast in Paris", func(e agent.Event) {
		if n, ok := e.(agent.Notice); ok {
			notices = append(notices, n.Text)
		}
	}); err != nil {
		t.Fatal(err)
	}
	n := strings.Join(notices, "\n")
	if !strings.Contains(n, "some external tools are unavailable") ||
		!strings.Contains(n, "tern ask asks no questions, so it starts a server the repository configures only when run with --yes") {
		t.Errorf("notices:\n%s\nwant the project's server refused, and why", n)
	}
	for _, tl := range srv.Requests()[0].Tools {
		if strings.HasPrefix(tl.Function.Name, "fix_") {
			t.Errorf("a tool of an unapproved project server was offered: %s", tl.Function.Name)
		}
	}
}
