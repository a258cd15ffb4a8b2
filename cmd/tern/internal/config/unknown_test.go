package config

import (
	"errors"
	"strings"
	"testing"
)

// TestFileProblems: every problem of a file is found in one load: each
// key tern does not know, at any depth, with the key it was probably
// meant as (an unknown table is named once, not key by key), every value
// of the wrong type, and every value out of range; none hides another.
func TestFileProblems(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file     string
		problems []string
	}{
		{"modle = \"qwen3\"\n", []string{`unknown key "modle" (did you mean "model"?)`}},
		{"modle = \"qwen3\"\nmax_turn = 3\nbogus = 1\n", []string{`unknown key "modle" (did you mean "model"?)`,
			`unknown key "max_turn" (did you mean "max_turns"?)`, `unknown key "bogus"`}},
		{"[stream]\nidle = \"5s\"\n", []string{`unknown key "stream.idle" (did you mean "stream.idle_timeout"?)`}},
		{"[profiles.qwen3]\ntemprature = 0.2\n", []string{`unknown key "profiles.qwen3.temprature" (did you mean "profiles.qwen3.temperature"?)`}},
		{"[strem]\nidle_timeout = \"5s\"\nmax_reply_bytes = 9999\n", []string{`unknown key "strem" (did you mean "stream"?)`}},
		{"[mcp.server.files]\ncommand = \"mcp-files\"\n", []string{`unknown key "mcp.server" (did you mean "mcp.servers"?)`}},
		{"[mcp.servers.files]\ncommand = \"mcp-files\"\ncomand = \"x\"\n", []string{`unknown key "mcp.servers.files.comand" (did you mean "mcp.servers.files.command"?)`}},
		// A type error hides neither the unknown keys nor the others.
		{"modle = \"x\"\nctx = \"big\"\nvram = \"lots\"\n[stream]\nheader_timeout = 5\n[mcp.server.x]\ncommand = \"y\"\n", []string{
			`unknown key "modle" (did you mean "model"?)`,
			"line 2: ctx must be an integer, not a string",
			"line 3: vram must be a number, not a string",
			`line 5: stream.header_timeout: time: missing unit in duration "5"`,
			`unknown key "mcp.server" (did you mean "mcp.servers"?)`}},
		// Values out of range, all of them, with the unknown keys.
		{"max_turns = 0\nvram = 100000\nbogus = 1\n", []string{`unknown key "bogus"`,
			"vram must be between 0.25 and 4096 (GiB of GPU memory), not 100000",
			"max_turns must be between 1 and 10000 (model requests per prompt), not 0"}},
		{"stream = 5\n", []string{"stream must be a table ([stream])"}},
	} {
		root, getenv := writeConfigs(t, tt.file, "")
		_, _, err := Load(root, getenv)
		var fe FileError
		if !errors.As(err, &fe) {
			t.Errorf("%q: error %v, want the file's problems", tt.file, err)
			continue
		}
		if !strings.HasSuffix(fe.Path, "config.toml") || strings.Join(fe.Problems, "|") != strings.Join(tt.problems, "|") {
			t.Errorf("%q: problems in %s:\n%s\nwant\n%s", tt.file, fe.Path, strings.Join(fe.Problems, "\n"), strings.Join(tt.problems, "\n"))
		}
	}
	root, getenv := writeConfigs(t, "modle = 1\nbogus = 2\n", "")
	_, _, err := Load(root, getenv)
	if want := "config.toml has 2 problems:\n  unknown key \"modle\" (did you mean \"model\"?)\n  unknown key \"bogus\""; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want one ending %q", err, want)
	}
	// A file that does not parse is one problem, with its line.
	root, getenv = writeConfigs(t, "model = \"x\"\nctx = \n", "")
	if _, _, err := Load(root, getenv); err == nil || !strings.Contains(err.Error(), "config.toml: line 2") {
		t.Errorf("a syntax error: %v", err)
	}
}

// TestLoadLenientGoesOn: a file with a problem is left out, the others
// are read, and every problem is listed, each naming its file (tern
// doctor's view), where Load stops at the first.
func TestLoadLenientGoesOn(t *testing.T) {
	t.Parallel()
	root, getenv := writeConfigs(t, "model = \"user-model\"\nctx = 12\n", "model = \"project-model\"\nbogus = 1\n")
	cfg, read, problems := LoadLenient(root, getenv)
	if len(problems) != 2 || !strings.Contains(problems[0].Error(), "ctx must be between") || !strings.Contains(problems[1].Error(), `unknown key "bogus"`) {
		t.Errorf("problems %v; want the user's ctx and the project's unknown key", problems)
	}
	if len(read) != 0 || cfg.Model != "" {
		t.Errorf("read %v, model %q; want neither file", read, cfg.Model)
	}
	root, getenv = writeConfigs(t, "model = \"user-model\"\n", "bogus = 1\n")
	cfg, read, problems = LoadLenient(root, getenv)
	if len(problems) != 1 || len(read) != 1 || cfg.Model != "user-model" {
		t.Errorf("read %v, model %q, problems %v; want the user's file read and the project's left out", read, cfg.Model, problems)
	}
	if _, _, err := Load(root, getenv); err == nil || !strings.Contains(err.Error(), ".tern.toml") {
		t.Errorf("Load: %v; want the project file's problem", err)
	}
}
