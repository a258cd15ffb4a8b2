//go:build realollama

package main

// Integration tests against a real Ollama serving the tiny models of
// models/ollamatest/real (`make test-real` builds the server, creates the
// models and sets TERN_REAL_OLLAMA_HOST). They fail, never skip, when the
// variable is unset: a run that did not test must not look like a pass.

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ternhq/tern/session"
)

// realHost is the server under test, host:port.
func realHost(t *testing.T) string {
	t.Helper()
	h := os.Getenv("TERN_REAL_OLLAMA_HOST")
	if h == "" {
		t.Fatal("TERN_REAL_OLLAMA_HOST is not set: run these tests with `make test-real`, which starts a real Ollama")
	}
	return h
}

// realFixture is a workspace whose tern talks to the real server.
func realFixture(t *testing.T) *fixture {
	t.Helper()
	host := realHost(t)
	dir := t.TempDir()
	files := map[string]string{
		"NOTES.md": "# Notes\nThe release codename is zebra-quartz-17.\n",
		"greet.go": "package greet\n\n// Hello returns the greeting the program prints.\nfunc Hello() string { return \"hello, tern\" }\n",
		"main.go":  "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{t: t, dir: dir, env: map[string]string{
		"OLLAMA_HOST": host, "HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(),
	}}
}

// realTern runs tern and fails the test unless it exits with code (-1:
// any end of a turn that ran, 0, 4 or 5).
func (f *fixture) realTern(code int, args ...string) (stdout, stderr string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.t.Context(), 3*time.Minute)
	defer cancel()
	got, out, errOut := f.tern(ctx, args...)
	if code >= 0 && got != code || code < 0 && got != exitOK && got != exitMaxTurns && got != exitStuck {
		f.t.Fatalf("tern %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, out, errOut)
	}
	return out, errOut
}

func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func wantNotIn(t *testing.T, what, text string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q:\n%s", what, w, text)
		}
	}
}

// turns reads the per-request metrics tern recorded in the workspace.
func (f *fixture) turns() []session.TurnMetrics {
	f.t.Helper()
	st, err := session.OpenWorkspace(f.t.Context(), f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.List(f.t.Context(), 100)
	if err != nil {
		f.t.Fatal(err)
	}
	var all []session.TurnMetrics
	for i := len(ss) - 1; i >= 0; i-- { // oldest first
		ts, err := st.Turns(f.t.Context(), ss[i].ID)
		if err != nil {
			f.t.Fatal(err)
		}
		all = append(all, ts...)
	}
	return all
}

const codename = "The release codename is zebra-quartz-17."

func TestRealDoctor(t *testing.T) {
	f := realFixture(t)
	out, _ := f.realTern(0, "doctor", "--model", "tiny-script")
	wantIn(t, "doctor", out,
		"Ollama      ✓ http://"+realHost(t)+" (version 0.17.4)",
		"tiny-script:latest", "tiny-embed:latest", "embedding",
		"Chat model  ✓ tiny-script:latest (requested)",
		"trained context: 4096 tokens",
		"Context     ✓ 4096 tokens (planned)",
		"Tools       ✓ native tool calls",
		"All checks passed.")
}

// A scripted model makes a native tool call (parsed by Ollama's template
// tool parser), reads the result and answers.
func TestRealAskNativeToolCall(t *testing.T) {
	f := realFixture(t)
	out, errOut := f.realTern(0, "ask", "--model", "tiny-script", "What is the release codename? Read NOTES.md.")
	if strings.TrimSpace(out) != codename {
		t.Errorf("stdout = %q, want %q", out, codename)
	}
	wantIn(t, "stderr", errOut, "▸ read_file", "✓ NOTES.md")
}

func TestRealAskJSON(t *testing.T) {
	f := realFixture(t)
	out, _ := f.realTern(0, "ask", "--json", "--model", "tiny-script", "What is the release codename? Read NOTES.md.")
	var types []string
	var done, end map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		typ, _ := ev["type"].(string)
		types = append(types, typ)
		switch typ {
		case "done":
			done = ev
		case "tool_end":
			end = ev
		}
	}
	wantIn(t, "event types", strings.Join(types, " "), "tool_start", "tool_end", "message", "done")
	if done == nil || done["reason"] != "stop" || done["turns"] != float64(2) {
		t.Errorf("done event = %v, want reason stop after 2 requests", done)
	}
	if n, _ := done["prompt_tokens"].(float64); n <= 0 {
		t.Errorf("done event has no prompt tokens from the server: %v", done)
	}
	if end == nil || end["is_error"] == true || !strings.Contains(end["output"].(string), "zebra-quartz-17") {
		t.Errorf("tool_end = %v", end)
	}
}

// Resume continues a session, and the server's prompt cache serves the
// prefix tern keeps byte-identical: prompt_eval_count counts every prompt
// token, but the runner evaluates only those its cache does not hold, and
// says how many it held ("loading cache slot … used=N" in the server's
// debug log).
func TestRealResumeAndPrefixCache(t *testing.T) {
	f := realFixture(t)
	logPath := os.Getenv("TERN_REAL_OLLAMA_LOG")
	before := logSize(t, logPath)
	f.realTern(0, "ask", "--model", "tiny-script-greet", "What does Hello in greet.go return? Read greet.go.")
	out, _ := f.realTern(0, "sessions")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("sessions:\n%s", out)
	}
	id := strings.Fields(lines[1])[0]
	out, errOut := f.realTern(0, "ask", "--resume", id, "--model", "tiny-script-greet", "And again: read greet.go.")
	if !strings.Contains(out, `Hello returns "hello, tern".`) {
		t.Errorf("resumed answer = %q\n%s", out, errOut)
	}
	turns := f.turns()
	if len(turns) != 4 {
		t.Fatalf("%d requests recorded, want 4 (a call and an answer, twice)", len(turns))
	}
	for i := 1; i < len(turns); i++ {
		prev, cur := turns[i-1], turns[i]
		if cur.PromptTokens <= prev.PromptTokens {
			t.Errorf("request %d: %d prompt tokens after %d; the history should only grow", i+1, cur.PromptTokens, prev.PromptTokens)
		}
	}
	// Request 2 repeats request 1's prompt and adds a call and a result:
	// the runner's cache must have held that prefix (a timing check said
	// the same, and failed on a loaded machine).
	first, second := turns[0], turns[1]
	used, ok := cacheUse(logSince(t, logPath, before), second.PromptTokens)
	if !ok {
		t.Fatalf("the server's log has no cache line for the request of %d prompt tokens (is OLLAMA_DEBUG=1 set for it?)", second.PromptTokens)
	}
	t.Logf("prompt tokens %d, then %d with %d of them cached", first.PromptTokens, second.PromptTokens, used)
	if used < first.PromptTokens*3/4 {
		t.Errorf("the prefix was not reused: %d of request 2's %d prompt tokens came from the cache, after a first prompt of %d", used, second.PromptTokens, first.PromptTokens)
	}
}

// cacheUse is how many tokens of the request whose prompt had n tokens the
// runner found in its cache, from its debug line "loading cache slot …
// prompt=n used=N". Requests of other tests interleave in the log; the
// prompt's length tells them apart.
func cacheUse(log string, n int) (used int, ok bool) {
	for _, m := range regexp.MustCompile(`msg="loading cache slot".* prompt=(\d+) used=(\d+)`).FindAllStringSubmatch(log, -1) {
		if p, _ := strconv.Atoi(m[1]); p == n {
			used, _ = strconv.Atoi(m[2])
			return used, true
		}
	}
	return 0, false
}

// num_ctx stays fixed across a session: one load, served with the
// window tern planned, across resumes.
func TestRealNumCtxFixedAcrossSession(t *testing.T) {
	f := realFixture(t)
	logPath := os.Getenv("TERN_REAL_OLLAMA_LOG")
	if logPath == "" {
		t.Fatal("TERN_REAL_OLLAMA_LOG is not set: make test-real points it at the server log")
	}
	before := logSize(t, logPath)
	// 2048 is not tiny-tools-llama's default window: any request without
	// it, or with another, reloads.
	// A random-weight model may not answer in two requests: exit 0, 4 or 5.
	f.realTern(-1, "ask", "--model", "tiny-tools-llama", "--ctx", "2048", "--max-turns", "2", "hi")
	f.realTern(-1, "ask", "--model", "tiny-tools-llama", "--ctx", "2048", "--max-turns", "2", "hello again")
	for _, m := range f.turns() {
		if m.NumCtx != 2048 {
			t.Errorf("a request was sent with num_ctx %d", m.NumCtx)
		}
	}
	if ctx := loadedContext(t, "tiny-tools-llama:latest"); ctx != 2048 {
		t.Errorf("/api/ps: tiny-tools-llama is served with %d tokens, want 2048", ctx)
	}
	// One start, or none when models/ollama's tests, which run beside
	// these, had already loaded the model with the same window
	// (TestRealConstrainedReplies asks it with num_ctx 2048 too).
	loads := regexp.MustCompile(`(?m)msg="?starting (llama )?runner`).FindAllString(logSince(t, logPath, before), -1)
	if len(loads) > 1 {
		t.Errorf("the server log shows %d runner starts during the session, want at most 1 (no reloads):\n%s", len(loads), logSince(t, logPath, before))
	}
}

// loadedContext is the window /api/ps reports for model (0: not loaded).
func loadedContext(t *testing.T, model string) int {
	t.Helper()
	resp, err := http.Get("http://" + realHost(t) + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil {
		t.Fatal(err)
	}
	for _, m := range ps.Models {
		if m.Name == model {
			return m.ContextLength
		}
	}
	return 0
}

var logMu sync.Mutex

func logSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func logSince(t *testing.T, path string, off int64) string {
	t.Helper()
	logMu.Lock()
	defer logMu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data[min(off, int64(len(data))):])
}

// Behaviour 6: an embedding-only model is no chat model; and with the
// index embedded by an installed model, search is semantic, which doctor
// says, through real /api/embed.
func TestRealEmbeddingsAndIndex(t *testing.T) {
	f := realFixture(t)
	out, _ := f.realTern(1, "doctor", "--model", "tiny-embed")
	wantIn(t, "doctor", out, "Chat model  ✗ tiny-embed:latest is an embedding model and cannot chat")
	wantNotIn(t, "doctor", out, "All checks passed")
	_, errOut := f.realTern(1, "ask", "--model", "tiny-embed", "hi")
	wantIn(t, "ask", errOut, "is an embedding model and cannot chat")

	out, errOut = f.realTern(0, "index", "--embed-model", "tiny-embed")
	wantIn(t, "index", out+errOut, "embedded with tiny-embed")
	out, _ = f.realTern(0, "search", "--json", "-k", "5", "Hello greeting")
	var vector bool
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var h map[string]any
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatalf("search line %q: %v", l, err)
		}
		if r, _ := h["vector_rank"].(float64); r > 0 {
			vector = true
		}
	}
	if !vector {
		t.Errorf("no hit came from the vectors:\n%s", out)
	}
	out, _ = f.realTern(0, "doctor", "--model", "tiny-script")
	wantIn(t, "doctor", out, "Embeddings  ✓ tiny-embed:latest (the index's", "embedded with tiny-embed")
	wantNotIn(t, "doctor", out, "lexical only")
}

// The TUI in a real terminal against the real server: a native tool call
// and the answer; and a looping model shown as a notice, not an error.
func TestRealTUIInTmux(t *testing.T) {
	f := realFixture(t)
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is not installed (.ci/run installs it)")
	}
	bin := filepath.Join(t.TempDir(), "tern")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil && args[0] != "kill-server" && args[0] != "kill-session" {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { tm("kill-server") })
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	run := func(name, model string) func(...string) string {
		cmdline := "exec env OLLAMA_HOST=" + quote(f.env["OLLAMA_HOST"]) + " XDG_CONFIG_HOME=" + quote(f.env["XDG_CONFIG_HOME"]) +
			" HOME=" + quote(f.env["HOME"]) + " " + quote(bin) + " --model " + model + " --dir " + quote(f.dir)
		tm("new-session", "-d", "-s", name, "-x", "110", "-y", "40", cmdline)
		return func(want ...string) string {
			t.Helper()
			deadline := time.Now().Add(2 * time.Minute)
			for {
				s := tm("capture-pane", "-p", "-J", "-t", name)
				ok := true
				for _, w := range want {
					ok = ok && strings.Contains(s, w)
				}
				if ok {
					return s
				}
				if time.Now().After(deadline) {
					t.Fatalf("the %s pane never showed %q:\n%s", name, want, s)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}

	wait := run("script", "tiny-script")
	wait("Ask about the code", "new session")
	tm("send-keys", "-t", "script", "What is the release codename? Read NOTES.md.", "Enter")
	wait("✓ read_file NOTES.md", "zebra-quartz-17")
	tm("kill-session", "-t", "script")

	wait = run("loop", "tiny-loop")
	wait("Ask about the code", "new session")
	tm("send-keys", "-t", "loop", "say hello", "Enter")
	pane := wait("hello hello", "kept repeating the same words")
	wantNotIn(t, "the loop pane", pane, "ended early", "Error", "error:")
}
