package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/acpcmd"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/diffcmd"
	"github.com/ternhq/tern/cmd/tern/internal/doctor"
	"github.com/ternhq/tern/cmd/tern/internal/evalcmd"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/indexcmd"
	"github.com/ternhq/tern/cmd/tern/internal/mcpserve"
	"github.com/ternhq/tern/cmd/tern/internal/promptview"
	"github.com/ternhq/tern/cmd/tern/internal/searchcmd"
	"github.com/ternhq/tern/cmd/tern/internal/sessionscmd"
	"github.com/ternhq/tern/cmd/tern/internal/undocmd"
	"github.com/ternhq/tern/cmd/tern/internal/versioncmd"
	"github.com/ternhq/tern/rag"
)

// parse runs tern's command line as Main does, but stops where the command
// would run: it returns the options the command would run with, the common
// flags, and the error of a command line that does not parse.
func parse(t *testing.T, stdin string, args ...string) (any, globalOptions, error) {
	t.Helper()
	a := &app{stdin: strings.NewReader(stdin), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	got, err := a.parse(t, args...)
	return got, a.globalOptions, err
}

// parse parses args into a, and returns the options the command would
// run with.
func (a *app) parse(t *testing.T, args ...string) (any, error) {
	var got any
	a.parsed = func(o any) error {
		got = o
		return nil
	}
	root := a.rootCommand()
	root.SetArgs(append([]string{}, args...)) // never nil: cobra would read the test binary's own arguments
	root.SetIn(a.stdin)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	err := root.ExecuteContext(t.Context())
	return got, err
}

// refused checks a parse's outcome against want, the text of the error
// it must give ("" for none): it fails the test on an error not wanted, a
// wanted error missing, or a command run in spite of one. It reports
// whether the command line was refused as wanted, leaving nothing more
// to check.
func refused(t *testing.T, err error, ran any, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want one saying %q", err, want)
	}
	if ran != nil {
		t.Errorf("the command ran with %+v", ran)
	}
	return true
}

// TestCommandFlags: tern's command line reaches each command's options,
// and its mistakes are refused, without anything running. Each command's
// own flags are tested in its package; these cases check the wiring: one
// per command, stdin for `ask -`, and usage errors through the root.
func TestCommandFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		stdin string
		want  any
		err   string
	}{
		{args: nil, want: &tuiOptions{}},
		{args: []string{"--resume", "ab12", "--rag", "--plan"}, want: &tuiOptions{resume: "ab12", rag: true, plan: true}},
		{args: []string{"-c"}, want: &tuiOptions{cont: true}},
		{args: []string{"ask", "-c", "and", "now?"}, want: &headless.Options{Prompt: "and now?", Continue: true}},
		{args: []string{"ask", "what", "is", "this?"}, want: &headless.Options{Prompt: "what is this?"}},
		{args: []string{"ask", "-"}, stdin: "from stdin\n", want: &headless.Options{Prompt: "from stdin\n"}},
		{args: []string{"ask"}, err: `no prompt: tern ask "PROMPT"`},
		{args: []string{"search", "parse", "config"}, want: &searchcmd.Options{Query: "parse config", Search: rag.Options{K: 10}}},
		{args: []string{"search", "-k", "0", "x"}, err: "-k must be at least 1, not 0"},
		{args: []string{"index"}, want: &indexcmd.Options{}},
		{args: []string{"sessions"}, want: &sessionscmd.Options{Limit: 20}},
		{args: []string{"undo", "--session", "ab"}, want: &undocmd.Options{Session: "ab"}},
		{args: []string{"diff", "--session", "ab"}, want: &diffcmd.Options{Session: "ab"}},
		{args: []string{"prompt", "--json"}, want: &promptview.Options{JSON: true}},
		{args: []string{"doctor"}, want: &doctor.Options{}},
		{args: []string{"version"}, want: &versioncmd.Options{}},
		{args: []string{"acp", "--root", "/a", "--root", "/b"}, want: &acpcmd.Options{Roots: []string{"/a", "/b"}}},
		{args: []string{"acp", "extra"}, err: `unknown command "extra"`},
		{args: []string{"mcp"}, want: &mcpserve.Options{}},
		{args: []string{"eval"}, want: &evalcmd.Options{Timeout: 10 * time.Minute}},
		{args: []string{"sessions", "extra"}, err: `unknown command "extra"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, _, err := parse(t, tt.stdin, tt.args...)
			if refused(t, err, got, tt.err) {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("options = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestCommonFlags: the flags every command takes land in globalOptions,
// and values out of range are usage errors before anything runs.
func TestCommonFlags(t *testing.T) {
	t.Parallel()
	defaults := globalOptions{maxTier: 3}
	for _, tt := range []struct {
		args []string
		want func(*globalOptions)
		err  string
	}{
		{args: []string{"doctor"}, want: func(*globalOptions) {}},
		{args: []string{"--model", "qwen3:4b", "--host", "h:1", "--backend", "openai", "--ctx", "8192", "--vram", "6", "doctor"},
			want: func(g *globalOptions) {
				g.model, g.host, g.backend, g.ctxTokens, g.vram = "qwen3:4b", "h:1", "openai", 8192, 6
			}},
		{args: []string{"ask", "--tier", "2", "--max-tier", "2", "--yes", "--max-turns", "9", "--tool-mode", "text", "-v", "hi"},
			want: func(g *globalOptions) {
				g.tier, g.maxTier, g.yes, g.maxTurns, g.toolMode, g.verbose = 2, 2, true, 9, "text", true
			}},
		{args: []string{"--dir", "/w", "--allow-read", "/a", "--allow-read", "/b,/c", "--yolo", "sessions"},
			want: func(g *globalOptions) { g.dir, g.allowRead, g.yolo = "/w", []string{"/a", "/b", "/c"}, true }},
		{args: []string{"--tier", "4", "doctor"}, err: "--tier must be 0 (read), 1 (edit), 2 (commands) or 3 (external), not 4"},
		{args: []string{"--tier", "2", "--max-tier", "1", "doctor"}, err: "--tier 2 is above --max-tier 1"},
		{args: []string{"--tool-mode", "txt", "doctor"}, err: `--tool-mode must be auto, native, text or constrained, not "txt"; did you mean "text"?`},
		{args: []string{"--backend", "olama", "doctor"}, err: `did you mean "ollama"?`},
		{args: []string{"--ctx", "10", "doctor"}, err: "--ctx must be between"},
		{args: []string{"--vram", "-1", "doctor"}, err: "--vram must be between"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, flags, err := parse(t, "", tt.args...)
			if refused(t, err, got, tt.err) {
				return
			}
			want := defaults
			tt.want(&want)
			if !reflect.DeepEqual(flags, want) {
				t.Errorf("common flags = %+v, want %+v", flags, want)
			}
		})
	}
}

// TestFlagsOverConfig: the environment overrides the config files and the
// flags override both, as README says, read without running anything.
func TestFlagsOverConfig(t *testing.T) {
	t.Parallel()
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "tern"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := "model = \"from-file\"\nctx = 4096\ntier = 1\nmax_tier = 2\nallow_read = [\"/file\"]\n"
	if err := os.WriteFile(filepath.Join(xdg, "tern", "config.toml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want func(*config.Config)
		err  string
	}{
		{name: "files", want: func(*config.Config) {}},
		{name: "environment", env: map[string]string{"TERN_MODEL": "from-env", "OLLAMA_HOST": `"h:9"`, "TERN_API_KEY": "k"},
			want: func(c *config.Config) {
				c.Model, c.Host = "from-env", "h:9"
				c.ApplyEnv(func(k string) string { return map[string]string{"TERN_API_KEY": "k"}[k] }) // the key, kept out of reach of files
			}},
		{name: "flags beat the environment", env: map[string]string{"TERN_MODEL": "from-env", "OLLAMA_HOST": "h:9"},
			args: []string{"--model", "from-flag", "--host", "h:1", "--ctx", "8192", "--allow-read", "/flag"},
			want: func(c *config.Config) {
				c.Model, c.Ctx, c.AllowRead = "from-flag", 8192, []string{"/file", "/flag"}
				c.SetHost("h:1")
			}},
		{name: "--tier raises the file's cap", args: []string{"--tier", "3"}, want: func(c *config.Config) { c.Tier, c.MaxTier = 3, 3 }},
		{name: "--max-tier below the file's tier", args: []string{"--max-tier", "0"}, err: "--tier 1 is above --max-tier 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"XDG_CONFIG_HOME": xdg}
			for k, v := range tt.env {
				env[k] = v
			}
			a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return env[k] }}
			if _, err := a.parse(t, append(tt.args, "doctor")...); err != nil {
				t.Fatal(err)
			}
			got, err := a.config(t.TempDir())
			if refused(t, err, nil, tt.err) {
				return
			}
			want := config.Default()
			want.Model, want.Ctx, want.Tier, want.MaxTier, want.AllowRead = "from-file", 4096, 1, 2, []string{"/file"}
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}
