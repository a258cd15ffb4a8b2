package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// fixture is a workspace and a fake Ollama for one test.
type fixture struct {
	t   *testing.T
	dir string
	srv *ollamatest.Server
	env map[string]string
	// retry, when set, is how often the TUI tries to reach the model
	// while it is offline (startTUIWith).
	retry time.Duration
	// wrap, when set, is the command the built binary runs under
	// (startTmux): a sandbox that mounts the workspace read-only.
	wrap []string
}

func newFixture(t *testing.T, models ...ollamatest.Model) *fixture {
	t.Helper()
	if len(models) == 0 {
		models = []ollamatest.Model{ollamatest.Qwen3(), ollamatest.NomicEmbed()}
	}
	dir := t.TempDir()
	files := map[string]string{
		"README.md":  "# demo\nA demo repository.\n",
		"main.go":    "package main\n\nfunc main() { println(\"hi\") }\n",
		"AGENTS.md":  "Run go test before committing.\n",
		".gitignore": "secret.txt\n",
		"secret.txt": "password",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := ollamatest.New(t, ollamatest.WithModels(models...))
	return &fixture{t: t, dir: dir, srv: srv, env: map[string]string{
		"OLLAMA_HOST":     srv.URL(),
		"XDG_CONFIG_HOME": t.TempDir(), // no user config leaks in
		"HOME":            t.TempDir(),
	}}
}

// tern runs Main in-process and returns its exit code and output.
func (f *fixture) tern(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{args[0], "--dir", f.dir}, args[1:]...)
	code = Main(ctx, args, strings.NewReader(""), &out, &errb, func(k string) string { return f.env[k] })
	return code, out.String(), errb.String()
}

func TestAskStreamsAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{Content: "It is a demo repository."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "what does this repo do?")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if out != "It is a demo repository.\n" {
		t.Errorf("stdout = %q", out)
	}
	for _, want := range []string{"using qwen3:8b (best installed model with tool support", "▸ read_file", "✓ README.md"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	sys := f.srv.Requests()[0].Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "Run go test before committing.") {
		t.Errorf("system prompt lacks the AGENTS.md notes:\n%s", sys.Content)
	}
}

func TestAskJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "Hello there."})
	code, out, errOut := f.tern(t.Context(), "ask", "--json", "--model", "qwen3:8b", "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	var last map[string]any
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		types = append(types, ev["type"].(string))
		last = ev
	}
	if types[0] != "token" || types[len(types)-1] != "done" || !slices.Contains(types, "message") {
		t.Errorf("event types = %v", types)
	}
	if last["reason"] != "stop" || last["turns"] != float64(1) {
		t.Errorf("done event = %v", last)
	}
}

func TestSessionsAndResume(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{Content: "First answer."}, ollamatest.Reply{Content: "Second answer."})
	if code, _, errOut := f.tern(t.Context(), "ask", "first question"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, _ := f.tern(t.Context(), "sessions")
	if code != 0 || !strings.Contains(out, "first question") || !strings.Contains(out, "qwen3:8b") {
		t.Fatalf("sessions = %d:\n%s", code, out)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if code, _, errOut := f.tern(t.Context(), "ask", "--resume", id, "second question"); code != 0 {
		t.Fatalf("resume exit %d: %s", code, errOut)
	}
	msgs := f.srv.Requests()[1].Messages
	var contents []string
	for _, m := range msgs[1:] {
		contents = append(contents, m.Content)
	}
	if strings.Join(contents, "|") != "first question|First answer.|second question" {
		t.Errorf("resumed request history = %q", contents)
	}
	if code, _, errOut := f.tern(t.Context(), "ask", "--resume", "nope", "x"); code != 1 || !strings.Contains(errOut, "tern sessions") {
		t.Errorf("unknown session: exit %d, %s", code, errOut)
	}
}

func TestAskFailures(t *testing.T) {
	t.Parallel()
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}()
	tests := []struct {
		name   string
		models []ollamatest.Model
		env    map[string]string
		args   []string
		code   int
		stderr []string
	}{
		{"ollama not running", nil, map[string]string{"OLLAMA_HOST": closed}, []string{"ask", "hi"}, 1,
			[]string{"cannot reach Ollama at http://" + closed, "ollama serve"}},
		{"model not pulled", nil, nil, []string{"ask", "--model", "llama3.1:8b", "hi"}, 1,
			[]string{`model "llama3.1:8b" is not installed`, "ollama pull llama3.1:8b", "installed: qwen3:8b, nomic-embed-text:latest"}},
		{"no chat model", []ollamatest.Model{ollamatest.NomicEmbed()}, nil, []string{"ask", "hi"}, 1,
			[]string{"no chat model is installed", "ollama pull qwen3:8b"}},
		{"empty prompt", nil, nil, []string{"ask", " "}, 2, []string{"the prompt is empty"}},
		{"bad flag", nil, nil, []string{"ask", "--nope", "x"}, 2, []string{"unknown flag: --nope", "tern ask --help"}},
		{"bad tool mode", nil, nil, []string{"ask", "--tool-mode", "magic", "x"}, 2, []string{"--tool-mode must be auto, native, text or constrained"}},
		// Said once: it read "ollama host: ollama host …".
		{"bad host", nil, nil, []string{"ask", "--host", "htp://x:1", "x"}, 1, []string{"tern: ollama host \"htp://x:1\": scheme must be http or https\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.models...)
			for k, v := range tt.env {
				f.env[k] = v
			}
			code, _, errOut := f.tern(t.Context(), tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("error is not one clear line:\n%s", errOut)
			}
		})
	}
}

func TestAskTextToolModeForModelsWithoutTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.Tiny())
	f.srv.Script(
		ollamatest.Reply{Content: `<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>`},
		ollamatest.Reply{Content: "Three files."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "what files are here?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "has no native tool support; using the text tool protocol") {
		t.Errorf("stderr does not say the text protocol is used:\n%s", errOut)
	}
	if out != "Three files.\n" {
		t.Errorf("stdout = %q", out)
	}
	for _, r := range f.srv.Requests() {
		if len(r.Tools) > 0 {
			t.Fatal("tools were sent natively to a model without the tools capability")
		}
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "doctor")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Ollama      ✓ " + f.srv.URL() + " (version 0.17.4)",
		"qwen3:8b", "tools thinking", "nomic-embed-text:latest", "embedding",
		"Chat model  ✓ qwen3:8b (best installed model with tool support)",
		"trained context: 40960 tokens",
		"Context     ✓ ",
		"Tools       ✓ native tool calls",
		"Embeddings  ✓ nomic-embed-text:latest",
		"Notes       ✓ AGENTS.md",
		"All checks passed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorReportsProblems(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.Tiny())
	code, out, _ := f.tern(t.Context(), "doctor")
	if code != 0 {
		t.Fatalf("doctor exit %d; a model without tools still runs, in text mode:\n%s", code, out)
	}
	for _, want := range []string{"text tool protocol", "ollama pull qwen3:8b", "nomic-embed-text is not installed", "ollama pull nomic-embed-text"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	f.env["OLLAMA_HOST"] = "127.0.0.1:1"
	code, out, _ = f.tern(t.Context(), "doctor")
	if code != 1 || !strings.Contains(out, "not reachable at http://127.0.0.1:1") || !strings.Contains(out, "ollama serve") {
		t.Errorf("doctor with Ollama down: exit %d\n%s", code, out)
	}
}

// TestBinary builds tern and drives it as a user would: a real process,
// a real signal.
func TestBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildTern(t)
	f := newFixture(t)
	env := f.binaryEnv()
	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append(args, "--dir", f.dir)...)
		cmd.Env = env
		return cmd
	}

	t.Run("doctor", func(t *testing.T) {
		out, err := run("doctor").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "All checks passed.") {
			t.Fatalf("doctor: %v\n%s", err, out)
		}
	})
	t.Run("ask", func(t *testing.T) {
		f.srv.Script(ollamatest.Reply{Content: "Binary answer."})
		out, err := run("ask", "hi").Output()
		if err != nil || string(out) != "Binary answer.\n" {
			t.Fatalf("ask: %v, stdout %q", err, out)
		}
	})
	t.Run("index and search", func(t *testing.T) {
		cmd := run("index")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), "embedded with nomic-embed-text (task prefixes)") || stderr.Len() > 0 {
			t.Fatalf("index: %v\n%s%s", err, out, stderr.String())
		}
		out, err = run("search", "-k", "1", "main").Output()
		if err != nil || !strings.HasPrefix(string(out), "main.go:3-3  function main") {
			t.Fatalf("search: %v\n%s", err, out)
		}
	})
	t.Run("ctrl-c cancels the turn", func(t *testing.T) {
		chunks := make([]string, 500)
		for i := range chunks {
			chunks[i] = "slow "
		}
		f.srv.Script(ollamatest.Reply{Chunks: chunks, ChunkDelay: 20 * time.Millisecond})
		cmd := run("ask", "talk slowly")
		var stdout, stderr syncBuffer // read while the process writes
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(patience)
		for !strings.Contains(stdout.String(), "slow slow") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Fatalf("exit %d (%v), want 130; stderr:\n%s", code, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "cancelled; the conversation so far is saved in session") {
			t.Errorf("stderr = %s", stderr.String())
		}
	})
}

// syncBuffer is a bytes.Buffer safe to read while another goroutine writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
