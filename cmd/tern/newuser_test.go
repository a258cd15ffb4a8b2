package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/cmd/tern/internal/versioncmd"
	"github.com/ternhq/tern/models/ollamatest"
)

// Usage errors exit 2 with a pointer to --help, and a near miss gets a
// suggestion; a wrong value in a config file is an error (exit 1) that
// names the key.
func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "--tier", "9", "hi"}, "--tier must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not 9"},
		{[]string{"ask", "--max-tier", "-1", "hi"}, "--max-tier must be 0 (read)"},
		{[]string{"ask", "--tier", "2", "--max-tier", "1", "hi"}, "--tier 2 is above --max-tier 1"},
		{[]string{"ask", "--ctx", "-5", "hi"}, "--ctx must be between 1024 and 2097152"},
		{[]string{"ask", "--vram", "-3", "hi"}, "--vram must be between 0.25 and 4096 (GiB of GPU memory), not -3"},
		{[]string{"ask", "--max-turns", "0", "hi"}, "--max-turns must be between 1 and 10000"},
		{[]string{"ask", "--tool-mode", "weird", "hi"}, `--tool-mode must be auto, native, text or constrained, not "weird"`},
		{[]string{"ask", "--tool-mode", "natve", "hi"}, `did you mean "native"?`},
		{[]string{"doctor", "--backend", "olama"}, `did you mean "ollama"?`},
		{[]string{"ask", "--modle", "qwen3:8b", "hi"}, "unknown flag: --modle; did you mean --model?"},
		{[]string{"askk", "hi"}, "unknown command \"askk\" for \"tern\"\n\nDid you mean this?\n\task"},
		{[]string{"sesions"}, "Did you mean this?\n\tsessions"},
		{[]string{"fix the bug"}, "unknown command \"fix the bug\" for \"tern\"\nTo ask without the TUI: tern ask \"PROMPT\""},
		{[]string{"ask"}, "tern: no prompt: tern ask \"PROMPT\" (or tern ask - to read it from stdin)\n"},
		{[]string{"search"}, "tern: no query: tern search \"QUERY\"\n"},
		{[]string{"index", "a", "b"}, "tern: index accepts one directory at most, not 2 arguments (a b)\n"},
		{[]string{"sessions", "old"}, "tern: sessions takes no arguments, not \"old\"\n"},
		{[]string{"ask", ""}, "the prompt is empty"},
		{[]string{"ask", "--vram", "abc", "hi"}, `--vram takes a number, not "abc"`},
		{[]string{"ask", "--ctx", "1.5", "hi"}, `--ctx takes a whole number, not "1.5"`},
		{[]string{"search", "-k", "x", "q"}, `-k takes a whole number, not "x"`},
		{[]string{"eval", "--replay", "--timeout", "5"}, `--timeout takes a duration such as 90s or 10m, not "5"`},
		{[]string{"ask", "-c", "--accept-plan", "--tier", "0"}, "--accept-plan carries the plan out, which needs tier 1 (edit) or more, not --tier 0"},
		{[]string{"completion", "nosh"}, `no completion script for "nosh": tern completion bash, zsh, fish or powershell`},
		{[]string{"completion", "zhs"}, "did you mean zsh?"},
		{[]string{"eval", "--replay", "--timeout", "0"}, "--timeout must be more than 0 (the longest a task may run, e.g. 10m), not 0s"},
		{[]string{"eval", "--replay", "--modes", "native,weird"}, `--modes: "weird" is not a tool mode; use native, text or constrained`},
	} {
		code, _, errOut := f.tern(t.Context(), tt.args...)
		// The hint names the help of the command the error was made in,
		// as cobra's own does; it named tern --help for every one.
		help := "Run 'tern --help' for usage."
		if c := tt.args[0]; c == "ask" || c == "search" || c == "index" || c == "sessions" || c == "completion" || c == "doctor" || c == "eval" {
			help = "Run 'tern " + c + " --help' for usage."
		}
		if code != exitUsage || !strings.Contains(errOut, tt.want) || !strings.HasSuffix(errOut, "\n"+help+"\n") {
			t.Errorf("tern %q: exit %d, stderr:\n%s\nwant exit 2, %q and %q", tt.args, code, errOut, tt.want, help)
		}
	}
	// Without a shell, completion still prints its help, and exits 0.
	if code, out, errOut := f.tern(t.Context(), "completion"); code != 0 || !strings.Contains(out, "tern completion [command]") {
		t.Errorf("tern completion: exit %d\n%s%s", code, out, errOut)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("a usage error still sent %d requests", n)
	}

	// The same value in the user's config file is the config's error.
	f.config("max_turns = 0\n")
	code, _, errOut := f.tern(t.Context(), "ask", "hi")
	if code != exitError || !strings.Contains(errOut, "max_turns must be between 1 and 10000") {
		t.Errorf("max_turns = 0 in the config: exit %d, stderr %q", code, errOut)
	}
}

// A turn that ran but did not do its work exits non-zero, so that a
// script can tell: 3 when changes were refused, 4 at the request limit, 5
// when the model got stuck. Each says so on stderr, in --json mode too.
func TestAskExitCodes(t *testing.T) {
	t.Parallel()
	t.Run("denied", func(t *testing.T) {
		f := newFixture(t)
		f.srv.Script(
			ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}},
			ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"NOTES.md","content":"x\n"}`}}},
			ollamatest.Reply{Content: "Fixed: the greeting now says hello."})
		code, out, errOut := f.tern(t.Context(), "ask", "--json", "change the greeting in main.go")
		if code != exitDenied {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitDenied, errOut)
		}
		if !strings.Contains(out, `"reason":"stop"`) {
			t.Errorf("the turn did not end with an answer:\n%s", out)
		}
		want := "tern: 2 file changes were refused and not made, whatever the answer says: run with --yes to allow file changes\n"
		if !strings.HasSuffix(errOut, want) {
			t.Errorf("stderr does not end with %q:\n%s", want, errOut)
		}
		if f.read("main.go") != "package main\n\nfunc main() { println(\"hi\") }\n" {
			t.Error("main.go changed")
		}
		// With --yes the same turn exits 0.
		f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}}, ollamatest.Reply{Content: "Fixed."})
		if code, _, errOut := f.tern(t.Context(), "ask", "--yes", "change the greeting in main.go"); code != 0 {
			t.Errorf("with --yes: exit %d: %s", code, errOut)
		}
	})
	t.Run("destructive", func(t *testing.T) {
		f := newFixture(t)
		f.srv.Script(
			ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"rm -rf ."}`}}},
			ollamatest.Reply{Content: "Cleaned."})
		code, _, errOut := f.tern(t.Context(), "ask", "--yes", "--tier", "2", "clean the repository")
		if code != exitDenied || !strings.Contains(errOut, "tern: 1 destructive command was refused and not made, whatever the answer says: run with --yolo to allow destructive commands\n") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})
	t.Run("max turns", func(t *testing.T) {
		f := newFixture(t)
		var n atomic.Int32
		f.srv.Respond(func(api.ChatRequest) ollamatest.Reply {
			return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: fmt.Sprintf(`{"pattern":"x%d"}`, n.Add(1))}}}
		})
		code, _, errOut := f.tern(t.Context(), "ask", "--max-turns", "3", "look around")
		if code != exitMaxTurns || !strings.Contains(errOut, "tern: the turn ended at the request limit, not with an answer; continue with tern ask --resume ") {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitMaxTurns, errOut)
		}
	})
	t.Run("stuck", func(t *testing.T) {
		f := newFixture(t)
		f.srv.Respond(func(api.ChatRequest) ollamatest.Reply {
			return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}}
		})
		code, _, errOut := f.tern(t.Context(), "ask", "read the readme")
		if code != exitStuck || !strings.Contains(errOut, "kept repeating the same tool call") ||
			!strings.Contains(errOut, "tern: the turn ended stuck, not with an answer") {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitStuck, errOut)
		}
	})
}

// tern --version and tern version print the version from the build info
// (its wording: versioncmd's TestFormat).
func TestVersion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errOut := f.tern(t.Context(), args...)
		if code != 0 || out != "tern "+versioncmd.String()+"\n" || !strings.Contains(out, "go1.") {
			t.Errorf("tern %s: exit %d, stdout %q, stderr %q", args[0], code, out, errOut)
		}
	}
}

// Shell completion offers the installed models, this workspace's
// sessions, the tool modes and the eval tasks.
func TestCompletionValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "Hello."})
	if code, _, errOut := f.tern(t.Context(), "ask", "first question"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, list, _ := f.tern(t.Context(), "sessions")
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "ask", "--model", ""}, []string{"qwen3:8b\tqwen3", "nomic-embed-text"}},
		{[]string{"__complete", "ask", "--model", "qw"}, []string{"qwen3:8b"}},
		{[]string{"__complete", "--resume", ""}, []string{id + "\t", "first question"}},
		{[]string{"__complete", "ask", "--resume", ""}, []string{id}},
		{[]string{"__complete", "undo", "--session", id[:3]}, []string{id}},
		{[]string{"__complete", "ask", "--tool-mode", ""}, []string{"auto\t", "native\t", "text\t", "constrained\t"}},
		{[]string{"__complete", "ask", "--tier", ""}, []string{"0\tread", "3\texternal"}},
		{[]string{"__complete", "eval", "--run", "add"}, []string{"add-flag\t"}},
		{[]string{"completion", "bash"}, []string{"__tern_handle_completion_types", "complete -o default"}},
		// No file names where a command takes none (4: no file completion),
		// directories for tern index's (16), nothing after it.
		{[]string{"__complete", "sessions", ""}, []string{":4\n"}},
		{[]string{"__complete", "search", ""}, []string{":4\n"}},
		{[]string{"__complete", "index", ""}, []string{":16\n"}},
		{[]string{"__complete", "index", "src", ""}, []string{":4\n"}},
	} {
		// f.tern puts --dir after the first argument: the sub-command's
		// place, here __complete's.
		code, out, errOut := f.tern(t.Context(), tt.args...)
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("tern %q: exit %d, stdout lacks %q:\n%s%s", tt.args, code, w, out, errOut)
			}
		}
	}
	code, out, _ := f.tern(t.Context(), "__complete", "ask", "--model", "qw")
	if code != 0 || strings.Contains(out, "nomic") {
		t.Errorf("--model qw completes models that do not start with qw:\n%s", out)
	}
}

// A bad .tern.toml is one failed check of tern doctor, which goes on with
// the rest: every unknown key is listed, near misses with the key meant.
// tern ask refuses the same file, naming every key too.
func TestDoctorReportsBadConfigAndGoesOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("modle = \"qwen3:8b\"\nmax_turn = 3\ncolour = \"blue\"\n[stream]\nidle_timout = \"2s\"\n[profiles.qwen3]\ntemprature = 0.5\n"), 0o644)
	code, out, errOut := f.tern(t.Context(), "doctor")
	if code != exitError {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"Config      ✗ " + filepath.Join(f.dir, ".tern.toml") + ": 5 problems\n",
		`unknown key "modle" (did you mean "model"?)`,
		`unknown key "max_turn" (did you mean "max_turns"?)`,
		"   unknown key \"colour\"\n",
		`unknown key "stream.idle_timout" (did you mean "stream.idle_timeout"?)`,
		`unknown key "profiles.qwen3.temprature" (did you mean "profiles.qwen3.temperature"?)`,
		"the checks below use the defaults and leave out the files above",
		"Ollama      ✓", "Chat model  ✓ qwen3:8b", "Workspace   ✓",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor's report lacks %q:\n%s%s", want, out, errOut)
		}
	}

	// A file that does not parse, and a value out of range in the
	// user's file: two failed checks, and doctor still goes on.
	os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("model = \"qwen3\n"), 0o644)
	f.config("max_turns = 0\n")
	code, out, _ = f.tern(t.Context(), "doctor")
	for _, want := range []string{
		"Config      ✗ " + filepath.Join(f.env["XDG_CONFIG_HOME"], "tern", "config.toml") + ": max_turns must be between 1 and 10000",
		"Config      ✗ " + filepath.Join(f.dir, ".tern.toml") + ": line 1",
		"Ollama      ✓",
	} {
		if code != exitError || !strings.Contains(out, want) {
			t.Errorf("exit %d; doctor's report lacks %q:\n%s", code, want, out)
		}
	}

	// A good file is a passed check naming it.
	os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("max_turns = 10\n"), 0o644)
	f.config("")
	code, out, _ = f.tern(t.Context(), "doctor")
	if !strings.Contains(out, "Config      ✓ "+filepath.Join(f.env["XDG_CONFIG_HOME"], "tern", "config.toml")+", "+filepath.Join(f.dir, ".tern.toml")) {
		t.Errorf("exit %d; the config check does not name the files read:\n%s", code, out)
	}

	// tern ask refuses the files, listing every problem of both at once:
	// a value of the wrong type hides neither the unknown keys nor the
	// values out of range.
	os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("modle = \"x\"\nctx = \"big\"\n[mcp.server.files]\ncommand = \"mcp-files\"\nthnk = \"on\"\n"), 0o644)
	f.config("max_turns = 0\nvram = 100000\n")
	code, _, errOut = f.tern(t.Context(), "ask", "hi")
	want := "tern: config " + filepath.Join(f.env["XDG_CONFIG_HOME"], "tern", "config.toml") + " has 2 problems:\n" +
		"  vram must be between 0.25 and 4096 (GiB of GPU memory), not 100000\n" +
		"  max_turns must be between 1 and 10000 (model requests per prompt), not 0\n" +
		"config " + filepath.Join(f.dir, ".tern.toml") + " has 3 problems:\n" +
		"  unknown key \"modle\" (did you mean \"model\"?)\n" +
		"  line 2: ctx must be an integer, not a string\n" +
		"  unknown key \"mcp.server\" (did you mean \"mcp.servers\"?)\n"
	if code != exitError || errOut != want {
		t.Errorf("tern ask: exit %d, stderr\n%s\nwant\n%s", code, errOut, want)
	}
}

// The commands that only look at a workspace's sessions (sessions, diff,
// undo) make nothing in one tern never ran in: no .tern, as git log makes
// no .git. They used to create .tern/tern.db wherever they were run.
func TestLookingMakesNoState(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.gitInit()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sessions"}, 0, "no sessions yet"},
		{[]string{"diff"}, exitError, "no session in this workspace has a checkpoint: none has changed files yet"},
		{[]string{"undo"}, exitError, "no session in this workspace has a checkpoint: none has changed files yet"},
		{[]string{"diff", "--session", "abc"}, exitError, `no session "abc" in this workspace; list them with ` + "`tern sessions`"},
		{[]string{"undo", "--session", "abc"}, exitError, `no session "abc" in this workspace`},
	} {
		code, _, errOut := f.tern(t.Context(), tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("tern %q: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
	if _, err := os.Lstat(filepath.Join(f.dir, ".tern")); !os.IsNotExist(err) {
		t.Errorf("looking made .tern (%v)", err)
	}
}

// With --json the done event comes last also when the turn fails before
// the agent runs, so that a script reading the events learns why: it
// used to get no event at all (an empty stdout) and only exit 1.
func TestAskJSONFailureEndsWithDone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "Hello."})
	f.mustTern("ask", "hi")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "--json", "--model", "nope", "hi"}, `model "nope" is not installed`},
		{[]string{"ask", "--json", "--host", "127.0.0.1:1", "hi"}, "cannot reach Ollama at http://127.0.0.1:1"},
		{[]string{"ask", "--json", "--resume", "zzz", "hi"}, `no session "zzz"`},
		{[]string{"ask", "--json", "-c", "--accept-plan"}, "has no plan to accept"},
	} {
		code, out, errOut := f.tern(t.Context(), tt.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var done struct{ Type, Reason, Error string }
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &done); err != nil || code != exitError ||
			done.Type != "done" || done.Reason != "error" || !strings.Contains(done.Error, tt.want) || !strings.Contains(errOut, tt.want) {
			t.Errorf("tern %q: exit %d, last event %+v (%v)\nstdout:\n%s\nstderr:\n%s\nwant exit 1 and a done event with %q", tt.args, code, done, err, out, errOut, tt.want)
		}
	}
}

// A first prompt that is not UTF-8 (a 0xff byte: text/tabwriter's escape
// character) does not take tern sessions' table apart: the rows below it
// came out with raw tabs, unaligned.
func TestSessionsTableWithBytesNotUTF8(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, prompt := range []string{"older question", "caf\xe9 \xff what", "newest question"} {
		f.srv.Script(ollamatest.Reply{Content: "ok"})
		f.mustTern("ask", prompt)
	}
	out, _ := f.mustTern("sessions")
	rows := strings.Split(strings.TrimRight(out, "\n"), "\n")
	col := strings.Index(rows[0], "FIRST PROMPT")
	if strings.Contains(out, "\t") || len(rows) != 4 || !strings.Contains(out, "caf\uFFFD \uFFFD what") {
		t.Fatalf("tern sessions:\n%s", out)
	}
	for _, r := range rows[1:] {
		if len(r) < col || r[col-2:col] != "  " || r[col] == ' ' {
			t.Errorf("row not aligned with FIRST PROMPT at %d: %q", col, r)
		}
	}
}
