package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/models/ollamatest"
)

// gitInit makes the fixture's directory a git repository with one commit.
func (f *fixture) gitInit() {
	f.t.Helper()
	cmdtest.GitCommit(f.t, f.dir)
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func toolNames(r api.ChatRequest) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

var editMain = ollamatest.Call{Name: "edit_file", Args: `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"hello\")"}`}

func TestAskEditsNeedYes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.gitInit()
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}}, ollamatest.Reply{Content: "I could not."})
	code, _, errOut := f.tern(t.Context(), "ask", "change the greeting in main.go")
	if code != exitDenied {
		t.Fatalf("exit %d, want %d: %s", code, exitDenied, errOut)
	}
	for _, want := range []string{
		`tern: tier 1 (edit) unlocked: edit_file, write_file — the request says "change"`,
		"✗ The user denied this edit_file call. Reason: tern ask asks no questions, so it refuses file changes unless run with --yes",
		"tern: 1 file change was refused and not made, whatever the answer says: run with --yes to allow file changes\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if f.read("main.go") != "package main\n\nfunc main() { println(\"hi\") }\n" {
		t.Error("main.go changed without --yes")
	}
}

func TestAskEditWithYesThenUndo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.gitInit()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"main.go"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"NOTES.md","content":"notes\n"}`}}},
		ollamatest.Reply{Content: "Done."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--yes", "update the greeting in main.go")
	if code != 0 || out != "Done.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if got := f.read("main.go"); !strings.Contains(got, `println("hello")`) {
		t.Fatalf("main.go = %q", got)
	}
	if !regexp.MustCompile(`tern: checkpoint [0-9a-f]{8} saved before the first change; .tern undo. restores it`).MatchString(errOut) {
		t.Errorf("stderr does not announce the checkpoint:\n%s", errOut)
	}
	if strings.Count(errOut, "checkpoint") != 1 {
		t.Errorf("the checkpoint was announced more than once:\n%s", errOut)
	}

	// Undo asks first; "n" changes nothing.
	code, out, errOut = f.undo(t, "n\n")
	if code != 1 || !strings.Contains(out, "Restore 1 file:\n  main.go\nDelete 1 file created since:\n  NOTES.md") || !strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("undo answered no: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "NOTES.md")); err != nil {
		t.Fatal("a declined undo deleted NOTES.md")
	}
	code, out, errOut = f.undo(t, "y\n")
	if code != 0 || !strings.Contains(out, "Restored 1 file and deleted 1 file.") || !strings.Contains(out, "refs/tern/undone/") {
		t.Fatalf("undo: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := f.read("main.go"); !strings.Contains(got, `println("hi")`) {
		t.Errorf("main.go after undo = %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "NOTES.md")); err == nil {
		t.Error("NOTES.md, created by the session, survived the undo")
	}
	code, out, _ = f.undo(t, "")
	if code != 0 || !strings.Contains(out, "Nothing to undo") {
		t.Errorf("second undo: exit %d\n%s", code, out)
	}
}

// undo runs tern undo with answer on stdin.
func (f *fixture) undo(t *testing.T, answer string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := Main(t.Context(), []string{"undo", "--dir", f.dir}, strings.NewReader(answer), &out, &errb, func(k string) string { return f.env[k] })
	return code, out.String(), errb.String()
}

func TestUndoFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Outside git, not "none has changed files": there are no checkpoints.
	if code, _, errOut := f.undo(t, ""); code != 1 || !strings.Contains(errOut, "undo is unavailable: the workspace is not in a git repository") {
		t.Errorf("undo with no sessions: exit %d: %s", code, errOut)
	}
	f.srv.Script(ollamatest.Reply{Content: "hi"})
	f.tern(t.Context(), "ask", "hello")
	code, out, _ := f.tern(t.Context(), "sessions")
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	var o, e strings.Builder
	code = Main(t.Context(), []string{"undo", "--dir", f.dir, "--session", id}, strings.NewReader(""), &o, &e, func(k string) string { return f.env[k] })
	if code != 1 || !strings.Contains(e.String(), "undo is unavailable: the workspace is not in a git repository") {
		t.Errorf("undo outside git: exit %d: %s", code, e.String())
	}
}

func TestAskWritesOutsideGitWithoutCheckpoint(t *testing.T) {
	f := newFixture(t)
	f.env["GIT_CEILING_DIRECTORIES"] = filepath.Dir(f.dir)
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(f.dir))
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}}, ollamatest.Reply{Content: "ok"})
	code, _, errOut := f.tern(t.Context(), "ask", "--yes", "--tier", "1", "do it")
	if code != 0 || !strings.Contains(errOut, "no undo checkpoint before the first change (the workspace is not in a git repository)") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(f.read("main.go"), "hello") {
		t.Error("the edit did not happen without git")
	}
}

func TestAskDestructiveCommands(t *testing.T) {
	t.Parallel()
	rm := ollamatest.Call{Name: "run_command", Args: `{"command":"rm -rf scratch"}`}
	for _, tt := range []struct {
		flag string
		ran  bool
		code int
		want string
	}{
		{"--yes", false, exitDenied, "it deletes files recursively; tern ask refuses destructive or unchecked commands unless run with --yolo"},
		{"--yolo", true, 0, "✓ $ rm -rf scratch → exit 0"},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			f := newFixture(t)
			os.MkdirAll(filepath.Join(f.dir, "scratch"), 0o755)
			f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{rm}}, ollamatest.Reply{Content: "ok"})
			code, _, errOut := f.tern(t.Context(), "ask", tt.flag, "--tier", "2", "clean up")
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d, stderr lacks %q:\n%s", code, tt.code, tt.want, errOut)
			}
			_, err := os.Stat(filepath.Join(f.dir, "scratch"))
			if ran := err != nil; ran != tt.ran {
				t.Errorf("scratch removed = %v, want %v", ran, tt.ran)
			}
		})
	}
}

func TestResumeKeepsUnlockedTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "request_tools", Args: `{"tool":"git_status","reason":"see changes"}`}}},
		ollamatest.Reply{Content: "first"},
		ollamatest.Reply{Content: "second"},
		ollamatest.Reply{Content: "third"},
	)
	if code, _, errOut := f.tern(t.Context(), "ask", "fix main.go"); code != 0 {
		t.Fatal(errOut)
	}
	_, out, _ := f.tern(t.Context(), "sessions")
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if code, _, errOut := f.tern(t.Context(), "ask", "--resume", id, "and now?"); code != 0 {
		t.Fatal(errOut)
	}
	reqs := f.srv.Requests()
	want := slices.Concat(tierNames(t, 0, false), tierNames(t, 1, false), []string{"git_status"})
	if got := toolNames(reqs[1]); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tools after the unlocks = %v, want %v", got, want)
	}
	if got := toolNames(reqs[2]); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("resumed session tools = %v, want the same as before, in the same order", got)
	}
	// An explicit --tier lowers a resumed session.
	if code, _, errOut := f.tern(t.Context(), "ask", "--resume", id, "--tier", "0", "just look"); code != 0 || !strings.Contains(errOut, "tools lowered to tier 0 (read) — --tier") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolNames(reqs3(f)); slices.Contains(got, "edit_file") {
		t.Errorf("after --tier 0 the tools are %v", got)
	}
}

func reqs3(f *fixture) api.ChatRequest { return f.srv.Requests()[3] }

func TestTierFlagsAndConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		args   []string
		code   int
		tools  []string // expected in the first request
		absent []string
		stderr string
	}{
		{name: "read-only session", args: []string{"--max-tier", "0", "fix it"}, absent: []string{"request_tools", "edit_file"}},
		{name: "start at 2", args: []string{"--tier", "2", "hi"}, tools: []string{"run_command", "git_commit"}},
		{name: "config max tier", config: "max_tier = 1\n", args: []string{"fix it and run the tests"}, tools: []string{"edit_file"}, absent: []string{"run_command"},
			stderr: "capped at tier 1"},
		{name: "config words", config: "[intent]\nedit = [\"frobnicate\"]\n", args: []string{"frobnicate main.go"}, tools: []string{"edit_file"}},
		{name: "tier above max", args: []string{"--tier", "2", "--max-tier", "1", "x"}, code: 2, stderr: "--tier 2 is above --max-tier 1"},
		{name: "bad tier", args: []string{"--tier", "7", "x"}, code: 2, stderr: "--tier must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not 7"},
		{name: "bad config", config: "max_tier = 9\n", args: []string{"x"}, code: 1, stderr: "max_tier must be"},
		{name: "unknown intent key", config: "[intent]\nverbs = [\"x\"]\n", args: []string{"x"}, code: 1, stderr: `unknown key "intent.verbs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.config != "" {
				os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte(tt.config), 0o644)
			}
			f.srv.Script(ollamatest.Reply{Content: "ok"})
			code, _, errOut := f.tern(t.Context(), append([]string{"ask"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", code, tt.code, tt.stderr, errOut)
			}
			if code != 0 {
				return
			}
			got := toolNames(f.srv.Requests()[0])
			for _, w := range tt.tools {
				if !slices.Contains(got, w) {
					t.Errorf("tools %v lack %s", got, w)
				}
			}
			for _, w := range tt.absent {
				if slices.Contains(got, w) {
					t.Errorf("tools %v have %s", got, w)
				}
			}
		})
	}
}

func TestDenyCommandsConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("deny_commands = [\"git push*\"]\n"), 0o644)
	os.MkdirAll(filepath.Join(f.env["XDG_CONFIG_HOME"], "tern"), 0o755)
	os.WriteFile(filepath.Join(f.env["XDG_CONFIG_HOME"], "tern", "config.toml"), []byte("allow_commands = [\"echo *\"]\n"), 0o644)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"git push origin main"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"echo allowed"}`}}},
		ollamatest.Reply{Content: "ok"},
	)
	// No --yes: the allowed command still runs, the denied one never does.
	code, _, errOut := f.tern(t.Context(), "ask", "--tier", "2", "push it")
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(errOut, `✗ This command is denied by the user's configuration (deny_commands "git push*")`) {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !strings.Contains(errOut, "✓ $ echo allowed → exit 0") {
		t.Errorf("the allowed command did not run without --yes:\n%s", errOut)
	}
}

// promptTokens reads "label ... N" rows of tern prompt's token table.
func promptTokens(t *testing.T, out, label string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `\s+(\d+)\s*$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q row in:\n%s", label, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestPromptCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.Remove(filepath.Join(f.dir, "AGENTS.md")) // the budget is for tern's own prompt
	code, out, errOut := f.tern(t.Context(), "prompt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# First request of a new session: qwen3:8b (qwen template), tier 0 (read), up to tier 3 (external)",
		"You are tern, a coding assistant",
		`{"type":"function","function":{"name":"request_tools"`,
		fmt.Sprintf("## Tools (%d, sent as JSON)", len(tierNames(t, 0, false))),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"name":"edit_file"`) {
		t.Error("tier-1 schemas are printed as sent at tier 0")
	}
	tier0, all := promptTokens(t, out, "request at tier 0"), promptTokens(t, out, "request at tier 3 (all tools)")
	t.Logf("tier 0: %d tokens; all tiers: %d tokens", tier0, all)
	if tier0 > 1000 {
		t.Errorf("the tier-0 request prefix is %d tokens, over 1,000", tier0)
	}
	if all > 2500 {
		t.Errorf("the all-tiers request prefix is %d tokens, over 2,500", all)
	}
	if this := promptTokens(t, out, "this request (tier 0)"); this != tier0 {
		t.Errorf("this request = %d, tier 0 = %d", this, tier0)
	}

	code, out, _ = f.tern(t.Context(), "prompt", "--tier", "2")
	if code != 0 || !strings.Contains(out, `"name":"git_commit"`) || promptTokens(t, out, "this request (tier 2)") != promptTokens(t, out, "request at tier 2") {
		t.Errorf("prompt --tier 2: exit %d\n%s", code, out)
	}
}

func TestPromptOffline(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["OLLAMA_HOST"] = "127.0.0.1:1"
	code, out, errOut := f.tern(t.Context(), "prompt", "--model", "llama3.2:3b")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "cannot reach Ollama") || !strings.Contains(errOut, "showing the prompt offline, for the llama template") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !strings.Contains(out, "llama3.2:3b (llama template)") || !strings.Contains(out, "request at tier 0") {
		t.Errorf("stdout:\n%s", out)
	}
}
