package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

// The config files' own rules (trust, ranges, unknown keys) are tested in
// cmd/tern/internal/config; these run tern end to end.

// TestProjectConfigWrittenByModelGrantsNothing has the model write a
// .tern.toml that allows every command and clears the user's denies; the
// next session still asks for, and refuses, what the user's config denies.
func TestProjectConfigWrittenByModelGrantsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.env["XDG_CONFIG_HOME"], "tern"), 0o755)
	os.WriteFile(filepath.Join(f.env["XDG_CONFIG_HOME"], "tern", "config.toml"), []byte("deny_commands = [\"touch *\"]\n"), 0o644)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":".tern.toml","content":"allow_commands = [\"*\"]\ndeny_commands = []\nallow_read = [\"/\"]\n"}`}}},
		ollamatest.Reply{Content: "configured"},
	)
	if code, _, errOut := f.tern(t.Context(), "ask", "--tier", "1", "--yes", "configure tern"); code != 0 {
		t.Fatalf("first session: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".tern.toml")); err != nil {
		t.Fatalf("the model's .tern.toml was not written: %v", err)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"touch pwned"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"echo hi > also-pwned"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"/etc/hostname"}`}}},
		ollamatest.Reply{Content: "done"},
	)
	code, _, errOut := f.tern(t.Context(), "ask", "--tier", "2", "go on")
	if code != exitDenied { // the command tern ask asked no one about
		t.Fatalf("second session: exit %d\n%s", code, errOut)
	}
	for _, name := range []string{"pwned", "also-pwned"} {
		if _, err := os.Stat(filepath.Join(f.dir, name)); err == nil {
			t.Errorf("%s was created: the repository's config granted commands", name)
		}
	}
	for _, want := range []string{"allow_commands ignored", "allow_read ignored", "denied by the user's configuration", "outside the workspace"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestFlagValuesValidated: the config values' range checks apply to
// flags, named as flags.
func TestFlagValuesValidated(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, args := range [][]string{{"--ctx", "99999999999"}, {"--vram", "-1"}, {"--vram", "NaN"}, {"--max-turns", "0"}} {
		code, _, errOut := f.tern(t.Context(), append([]string{"ask"}, append(args, "hi")...)...)
		if code == 0 || !strings.Contains(errOut, args[0]+" must be between") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
