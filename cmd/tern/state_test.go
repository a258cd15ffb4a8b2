package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools/lsp"
)

// binTern runs the built binary on the fixture's workspace with exactly
// env (nothing of the test's own environment but PATH, which env may
// set), behind wrap when set, and returns its exit code and output. As
// binaryEnv does, it switches language servers off in the fixture's user
// config, which env may name: doctor would start every one on the test's
// PATH (two CPU seconds and more each time).
func (f *fixture) binTern(t *testing.T, wrap []string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if f.env["PATH"] == "" {
		f.noLanguageServers()
	}
	argv := append(append(append([]string{}, wrap...), buildTern(t)), append(args, "--dir", f.dir)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// pathWithoutLanguageServers is PATH= the test's PATH less its
// directories that hold a language server tern runs by default, for a
// binTern whose env names no user config to switch them off in (no HOME):
// doctor would start each, two CPU seconds and more. What those runs
// check needs nothing from PATH.
func pathWithoutLanguageServers() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		look, server := lsp.LookPathIn(dir), false
		for _, d := range lsp.Defaults {
			for _, c := range d.Candidates {
				if _, err := look(c[0]); err == nil {
					server = true
				}
			}
		}
		if !server {
			keep = append(keep, dir)
		}
	}
	return "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
}

// readOnly makes dir read-only for tern: its mode, for a user who is not
// root; a read-only mount (bwrap, the prefix it returns) for root, who
// writes whatever the mode says.
func readOnly(t *testing.T, dir string) (wrap []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return nil
	}
	bwrap := testenv.Program(t, "bwrap", "apt-get install bubblewrap")
	wrap = []string{bwrap, "--dev-bind", "/", "/", "--ro-bind", dir, dir}
	if out, err := exec.Command(wrap[0], append(wrap[1:], "true")...).CombinedOutput(); err != nil {
		testenv.Missing(t, "a bwrap that can mount (user namespaces)", string(out))
	}
	return wrap
}

// TestReadOnlyWorkspace: in a workspace tern cannot write, tern ask, the
// TUI, tern index and tern sessions keep the state under the user's state
// directory and say so once; spilled output is read from there; doctor
// says where the state is and that it can be written, or why not.
func TestReadOnlyWorkspace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.dir, "big.txt"), []byte(strings.Repeat("a needle in a haystack "+strings.Repeat("hay ", 100)+"\n", 300)), 0o644)
	wrap := readOnly(t, f.dir)
	state := t.TempDir()
	env := []string{"OLLAMA_HOST=" + f.srv.URL(), "XDG_CONFIG_HOME=" + f.env["XDG_CONFIG_HOME"], "HOME=" + f.env["HOME"], "XDG_STATE_HOME=" + state}

	// The grep's output is spilled; the model reads it back.
	spilled := regexp.MustCompile(`full output: (\S+);`)
	f.srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "user":
			return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"needle"}`}}}
		case last.ToolName == "grep":
			if m := spilled.FindStringSubmatch(last.Content); m != nil {
				return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"` + m[1] + `","limit":2}`}}}
			}
		}
		return ollamatest.Reply{Content: "Found it."}
	})
	code, out, errOut := f.binTern(t, wrap, env, "ask", "find the needle")
	where := filepath.Join(state, "tern", "workspaces") + "/"
	if code != 0 || out != "Found it.\n" || strings.Count(errOut, "the workspace is read-only: tern keeps this workspace's sessions and index in "+where) != 1 {
		t.Fatalf("ask: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if !regexp.MustCompile(`✓ ` + regexp.QuoteMeta(where) + `\S+/outputs/\S+-grep.txt:1-2`).MatchString(errOut) {
		t.Errorf("the spilled output was not read back:\n%s", errOut)
	}
	code, _, errOut = f.binTern(t, wrap, env, "ask", "again")
	if code != 0 || strings.Contains(errOut, "read-only") {
		t.Errorf("the second ask: exit %d; it says again where the state is:\n%s", code, errOut)
	}
	if code, out, _ := f.binTern(t, wrap, env, "sessions"); code != 0 || !strings.Contains(out, "find the needle") || !strings.Contains(out, "again") {
		t.Errorf("sessions: exit %d:\n%s", code, out)
	}
	if code, out, errOut := f.binTern(t, wrap, env, "index"); code != 0 || !strings.Contains(out, "files") {
		t.Errorf("index: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, _ = f.binTern(t, wrap, env, "doctor")
	if !regexp.MustCompile(`(?m)^State       ✓ `+regexp.QuoteMeta(where)+`\S+ \(the workspace is read-only\)$`).MatchString(out) ||
		!strings.Contains(out, "Sessions    ✓ "+where) || !strings.Contains(out, "Index       ✓ "+where) {
		t.Errorf("doctor: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".tern")); err == nil {
		t.Error("tern made .tern in the read-only workspace")
	}

	// The TUI says where the state is kept, the first time.
	g := newFixture(t)
	g.wrap, g.env["XDG_STATE_HOME"] = readOnly(t, g.dir), t.TempDir()
	tm := startTmux(t, g, 200, 30)
	tm.waitPane("the workspace is read-only: tern keeps this workspace's sessions and index in "+g.env["XDG_STATE_HOME"], "new session")

	// Without HOME nor XDG_STATE_HOME there is nowhere to keep it.
	h := newFixture(t)
	wrap = readOnly(t, h.dir)
	bare := []string{"OLLAMA_HOST=" + h.srv.URL(), pathWithoutLanguageServers()}
	code, _, errOut = h.binTern(t, wrap, bare, "ask", "hi")
	if code != 1 || !strings.Contains(errOut, "cannot keep tern's state: the workspace is read-only, and neither XDG_STATE_HOME nor HOME is set") {
		t.Errorf("ask without HOME: exit %d:\n%s", code, errOut)
	}
	code, out, _ = h.binTern(t, wrap, bare, "doctor")
	if code != 1 || !strings.Contains(out, "State       ✗ the workspace is read-only, and neither") || !strings.Contains(out, "HOME        ! not set") {
		t.Errorf("doctor without HOME: exit %d:\n%s", code, out)
	}
}

// TestHomeWorkspace: tern asks before making .tern in the home directory
// (on a terminal; "no" and no terminal keep it out, said once), and
// doctor warns of such a workspace: the model may read all of it, no
// git (undo off), VRAM assumed, HOME unset.
func TestHomeWorkspace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newFixture(t)
	f.env["HOME"], f.env["XDG_STATE_HOME"] = f.dir, t.TempDir()
	tm := startTmux(t, f, 200, 30)
	tm.waitPane("tern: " + f.dir + " is your home directory. Make .tern there for tern's sessions and index? [y/N]")
	tm.keys("n", "Enter")
	tm.waitPane("you kept .tern out of your home directory: tern keeps this workspace's sessions and index in "+f.env["XDG_STATE_HOME"], "new session")
	if _, err := os.Stat(filepath.Join(f.dir, ".tern")); err == nil {
		t.Error("tern made .tern in the home directory after the user said no")
	}

	g := newFixture(t)
	g.env["HOME"], g.env["XDG_STATE_HOME"] = g.dir, t.TempDir()
	tm = startTmux(t, g, 200, 30)
	tm.waitPane("Make .tern there for tern's sessions and index? [y/N]")
	tm.keys("y", "Enter")
	tm.waitPane("new session")
	if _, err := os.Stat(filepath.Join(g.dir, ".tern", "tern.db")); err != nil {
		t.Errorf("tern did not make .tern in the home directory the user agreed to: %v", err)
	}

	// Without a terminal tern ask does not ask, and keeps .tern out.
	h := newFixture(t)
	state := t.TempDir()
	env := []string{"OLLAMA_HOST=" + h.srv.URL(), "XDG_CONFIG_HOME=" + h.env["XDG_CONFIG_HOME"], "HOME=" + h.dir, "XDG_STATE_HOME=" + state}
	h.srv.Script(ollamatest.Reply{Content: "Hi."})
	code, _, errOut := h.binTern(t, nil, env, "ask", "hi")
	if code != 0 || !strings.Contains(errOut, "tern: the workspace is your home directory, where tern makes no .tern unasked: tern keeps this workspace's sessions and index in "+state) {
		t.Errorf("ask in the home directory: exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".tern")); err == nil {
		t.Error("tern ask made .tern in the home directory")
	}

	code, out, _ := h.binTern(t, nil, env, "doctor")
	for _, want := range []string{
		"Workspace   ! it is your home directory: the model may read every file in it",
		"Undo        ! off: not a git repository, so tern takes no checkpoint before the model changes files; `git init",
		"State       ✓ " + state,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	if _, err := exec.LookPath("nvidia-smi"); err != nil && !strings.Contains(out, "VRAM        ! 8.0 GB assumed, not measured (no nvidia-smi)") {
		t.Errorf("doctor does not say the VRAM is assumed:\n%s", out)
	}
	if _, out, _ := h.binTern(t, nil, env, "doctor", "--vram", "6"); strings.Contains(out, "assumed") {
		t.Errorf("doctor says --vram 6 is assumed:\n%s", out)
	}
	_, out, _ = h.binTern(t, nil, []string{"OLLAMA_HOST=" + h.srv.URL(), "XDG_STATE_HOME=" + state, pathWithoutLanguageServers()}, "doctor")
	if !strings.Contains(out, "HOME        ! not set: tern reads no config file of yours") {
		t.Errorf("doctor without HOME:\n%s", out)
	}
}
