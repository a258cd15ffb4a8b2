package config

import (
	"errors"
	"strings"
	"testing"
)

// TestUnknownKeys: a key tern does not know stops loading with an error
// naming the file and each unknown key, with the key it was probably
// meant as, at any depth; an unknown table is named once, not key by key.
func TestUnknownKeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file string
		keys []string
	}{
		{"modle = \"qwen3\"\n", []string{`"modle" (did you mean "model"?)`}},
		{"modle = \"qwen3\"\nmax_turn = 3\nbogus = 1\n", []string{`"modle" (did you mean "model"?)`, `"max_turn" (did you mean "max_turns"?)`, `"bogus"`}},
		{"[stream]\nidle = \"5s\"\n", []string{`"stream.idle" (did you mean "stream.idle_timeout"?)`}},
		{"[profiles.qwen3]\ntemprature = 0.2\n", []string{`"profiles.qwen3.temprature" (did you mean "profiles.qwen3.temperature"?)`}},
		{"[strem]\nidle_timeout = \"5s\"\nmax_reply_bytes = 9999\n", []string{`"strem" (did you mean "stream"?)`}},
	} {
		root, getenv := writeConfigs(t, tt.file, "")
		_, _, err := Load(root, getenv)
		var uk UnknownKeysError
		if !errors.As(err, &uk) {
			t.Errorf("%q: error %v, want unknown keys", tt.file, err)
			continue
		}
		if !strings.HasSuffix(uk.Path, "config.toml") || strings.Join(uk.Keys, "|") != strings.Join(tt.keys, "|") {
			t.Errorf("%q: unknown keys %q in %s, want %q", tt.file, uk.Keys, uk.Path, tt.keys)
		}
	}
	root, getenv := writeConfigs(t, "modle = 1\nbogus = 2\n", "")
	_, _, err := Load(root, getenv)
	if want := `unknown keys "modle" (did you mean "model"?) and "bogus"`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want one ending %q", err, want)
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
