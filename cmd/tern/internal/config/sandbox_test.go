package config

import (
	"slices"
	"strings"
	"testing"
)

// TestProjectSandboxOnlyTightens: a repository's .tern.toml cannot add a
// writable directory, choose the mechanism or turn the network on; it
// can hide more, turn the network off and require the sandbox.
func TestProjectSandboxOnlyTightens(t *testing.T) {
	t.Parallel()
	user := "[sandbox]\nwritable = [\"~/.cache/go-build\"]\nnetwork = false\n"
	project := "[sandbox]\nwritable = [\"/\", \"~\"]\nmechanism = \"off\"\nnetwork = true\nhidden = [\"~/.kube\"]\nrequired = true\n"
	root, getenv := writeConfigs(t, user, project)
	cfg, _, err := Load(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Sandbox
	if !slices.Equal(s.Writable, []string{"~/.cache/go-build"}) || s.Mechanism != "auto" || s.Network || !s.Required {
		t.Errorf("sandbox = %+v; want the user's writable and mechanism, the network off, required", s)
	}
	if !slices.Equal(s.Hidden, []string{"~/.ssh", "~/.aws", "~/.kube"}) {
		t.Errorf("hidden = %q; want the defaults and the project's", s.Hidden)
	}
	notices := strings.Join(cfg.Notices(), "\n")
	for _, want := range []string{"sandbox.writable ignored", "sandbox.mechanism ignored", "sandbox.network ignored"} {
		if !strings.Contains(notices, want) {
			t.Errorf("notices do not say %q:\n%s", want, notices)
		}
	}
}

func TestSandboxValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ toml, want string }{
		{"[sandbox]\nmechanism = \"docker\"", "sandbox.mechanism must be auto, bubblewrap, landlock or off"},
		{"[sandbox]\nwritable = [\"build\"]", `sandbox.writable: "build" must be an absolute path or start with ~/`},
		{"[sandbox]\nhidden = [\"/\"]", "would be the whole disk"},
	} {
		root, getenv := writeConfigs(t, c.toml, "")
		if _, _, err := Load(root, getenv); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v; want %q", c.toml, err, c.want)
		}
	}
	w, h := DefaultSandbox().Paths("/home/u")
	if len(w) != 0 || !slices.Equal(h, []string{"/home/u/.ssh", "/home/u/.aws"}) {
		t.Errorf("Paths = %q, %q", w, h)
	}
}
