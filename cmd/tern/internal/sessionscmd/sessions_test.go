package sessionscmd

import (
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
)

// TestNewCmd: -n and --limit land in Options, 20 by default; arguments
// are refused before anything runs.
func TestNewCmd(t *testing.T) {
	t.Parallel()
	cmdtest.CheckParse(t, NewCmd, []cmdtest.Case[Options]{
		{Args: nil, Want: Options{Limit: 20}},
		{Args: []string{"-n", "5"}, Want: Options{Limit: 5}},
		{Args: []string{"--limit", "1"}, Want: Options{Limit: 1}},
		{Args: []string{"extra"}, Err: `unknown command "extra" for "sessions"`},
		{Args: []string{"-n", "x"}, Err: `invalid argument "x"`},
	})
}

// list runs tern sessions in root.
func list(t *testing.T, root string, limit int) (string, string, error) {
	t.Helper()
	var out, errOut strings.Builder
	err := Run(t.Context(), Env{Root: root, Out: &out, Err: &errOut}, &Options{Limit: limit})
	return out.String(), errOut.String(), err
}

func TestRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	out, errOut, err := list(t, root, 20)
	if err != nil || out != "" || errOut != "no sessions yet; start one with tern ask \"...\"\n" {
		t.Fatalf("no sessions: %v, %q, %q", err, out, errOut)
	}

	start := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	now := start
	store, err := session.OpenWorkspace(t.Context(), root, session.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	first, err := store.Create(t.Context(), "qwen3:4b", root)
	if err != nil {
		t.Fatal(err)
	}
	long := "explain " + strings.Repeat("the parser ", 10) + "\nplease"
	for _, m := range []models.Message{{Role: models.RoleUser, Content: long}, {Role: models.RoleAssistant, Content: "ok"}, {Role: models.RoleUser, Content: "more"}} {
		if err := store.AppendMessage(t.Context(), first.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.RecordTurn(t.Context(), first.ID, session.TurnMetrics{PromptTokens: 1200, EvalTokens: 34}); err != nil {
		t.Fatal(err)
	}
	now = start.Add(time.Hour)
	second, err := store.Create(t.Context(), "gemma3:4b", root)
	if err != nil {
		t.Fatal(err)
	}

	out, errOut, err = list(t, root, 20)
	lines := strings.Split(out, "\n")
	if err != nil || errOut != "" || len(lines) != 4 || lines[3] != "" {
		t.Fatalf("%v, %q:\n%s", err, errOut, out)
	}
	if !strings.HasPrefix(lines[0], "ID ") || !strings.HasSuffix(lines[0], "  FIRST PROMPT") {
		t.Errorf("header = %q", lines[0])
	}
	// Newest first, the columns aligned, the prompt on one line, cut short.
	if got, want := strings.Join(strings.Fields(lines[1]), " "), second.ID+" "+now.Local().Format("2006-01-02 15:04")+" gemma3:4b 0 0"; got != want {
		t.Errorf("newest = %q, want %q", got, want)
	}
	if !strings.HasPrefix(lines[2], first.ID+"  "+start.Local().Format("2006-01-02 15:04")+"  qwen3:4b   2      1234    explain the parser") ||
		!strings.HasSuffix(lines[2], "…") || strings.Contains(lines[2], "please") {
		t.Errorf("oldest = %q", lines[2])
	}
	if strings.Index(lines[0], "FIRST PROMPT") != strings.Index(lines[2], "explain") {
		t.Errorf("columns not aligned:\n%s", out)
	}

	out, _, _ = list(t, root, 1)
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, second.ID) {
		t.Errorf("-n 1:\n%s", out)
	}
}
