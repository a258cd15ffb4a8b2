package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/cmd/tern/internal/promptview"
	"github.com/ternhq/tern/models/ollamatest"
)

// startTUIWith runs `tern ARGS` in-process on a simulation screen of w×h.
// A dialog that opened by itself takes keys after 50ms of quiet, not the
// TUI's 500ms, as in the tui package's own tests: the tests wait for it
// to take keys (waitDialogKeys) and would wait out the grace each time.
func (f *fixture) startTUIWith(ctx context.Context, w, h int, args ...string) (*lockedScreen, <-chan error) {
	sim := &lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), w: w, h: h}
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{},
		getenv: func(k string) string { return f.env[k] }, screen: sim, retryEvery: f.retry, keyGrace: 50 * time.Millisecond}
	root := a.rootCommand()
	root.SetArgs(append([]string{"--dir", f.dir}, args...))
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	return sim, done
}

// dialogText is what the dialog framed by ╔ … ╝ on screen shows, row by
// row, without its frame; "" when there is none.
func dialogText(screen string) string {
	rows := strings.Split(screen, "\n")
	top, left, right := -1, -1, -1
	for y, r := range rows {
		rr := []rune(r)
		for x, c := range rr {
			if c == '╔' && top < 0 {
				top, left = y, x
			}
			if c == '╗' && top == y {
				right = x
			}
		}
		if top >= 0 {
			break
		}
	}
	if top < 0 || right < 0 {
		return ""
	}
	var b strings.Builder
	for y := top + 1; y < len(rows); y++ {
		rr := []rune(rows[y])
		if left < len(rr) && rr[left] == '╚' {
			break
		}
		if right < len(rr) {
			b.WriteString(strings.TrimSpace(string(rr[left+1 : right])))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func quit(tb testing.TB, sim *lockedScreen, done <-chan error) {
	tb.Helper()
	sim.InjectKey(tcell.KeyCtrlQ, 0, tcell.ModNone)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		tb.Fatal("Ctrl+Q did not quit")
	}
}

// TestTUIMessagesANewUserSees drives the TUI through what misled a new
// user: the run_command approval showing the command twice, /compact
// saying "nothing to compact" and then "compaction done", "1 files read"
// after /index, and /undo outside git.
func TestTUIMessagesANewUserSees(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A workspace with a single file, outside git.
	f.dir = t.TempDir()
	os.WriteFile(filepath.Join(f.dir, "main.go"), []byte("package main\n\nfunc main() { println(\"hi\") }\n"), 0o644)
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"go vet ./..."}`}}},
		ollamatest.Reply{Content: "Not run, then."},
	)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUIWith(ctx, 100, 30, "--tier", "2")
	waitScreen(t, sim, "qwen3:8b │ tier 2")

	typeLine(sim, "vet the code")
	s := waitScreen(t, sim, "Allow run_command?")
	d := dialogText(s)
	if n := strings.Count(d, "go vet ./..."); n != 1 {
		t.Errorf("the approval shows the command %d times, want once:\n%s", n, d)
	}
	if !strings.Contains(d, "(in "+f.dir) || !strings.Contains(d, "timeout 30s)") || strings.Contains(d, "the tool's default") {
		t.Errorf("the approval does not say where and how long the command runs:\n%s", d)
	}
	waitDialogKeys(t, sim)
	sim.InjectKey(tcell.KeyRune, 'n', tcell.ModNone)
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, sim, "Not run, then.")
	waitGone(t, sim, "generating")

	typeLine(sim, "/compact")
	waitScreen(t, sim, "nothing to compact: the conversation takes")

	// What /compact says after that is on the screen by the time /index,
	// typed after it, has answered.
	typeLine(sim, "/index")
	s = waitScreen(t, sim, "index: 1 file read, 0 unchanged, 0 removed; 1 file and ")
	if strings.Contains(s, "1 files") {
		t.Errorf("a plural for one:\n%s", s)
	}
	if strings.Contains(s, "compaction done") || strings.Contains(s, "compacting") {
		t.Errorf("/compact that compacted nothing says more:\n%s", s)
	}

	// /undo takes back the last turn; it changed no files.
	typeLine(sim, "/undo")
	waitScreen(t, sim, "undo: take back the last turn?", "› vet the code", "The turn changed no files.")
	waitDialogKeys(t, sim)
	sim.InjectKey(tcell.KeyRune, 'n', tcell.ModNone)
	waitScreen(t, sim, "undo cancelled; nothing was changed")
	quit(t, sim, done)
}

// Outside git, tern undo says that it needs git, not that no session
// changed files.
func TestUndoOutsideGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{editMain}}, ollamatest.Reply{Content: "Done."})
	if code, _, errOut := f.tern(t.Context(), "ask", "--yes", "change the greeting"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(f.read("main.go"), "hello") {
		t.Fatal("the edit was not made")
	}
	code, _, errOut := f.tern(t.Context(), "undo", "--yes")
	want := "tern: undo is unavailable: the workspace is not in a git repository, so tern takes no checkpoints here and cannot restore what a session changed\n"
	if code != exitError || errOut != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
	f.gitInit()
	code, _, errOut = f.tern(t.Context(), "undo", "--yes")
	if code != exitError || !strings.Contains(errOut, "no session in this workspace has a checkpoint: none has changed files yet") {
		t.Errorf("in git: exit %d, stderr %q", code, errOut)
	}
}

// tern prompt prints a Markdown report, and --json one JSON object with
// the same prefix and counts.
func TestPromptReportAndJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "prompt")
	if code != 0 || !strings.HasPrefix(out, "# First request of a new session: qwen3:8b") || !strings.Contains(out, "## Tools (") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut = f.tern(t.Context(), "prompt", "--json", "--tier", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p promptview.JSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	names := map[string]bool{}
	for _, raw := range p.Tools {
		var spec struct {
			Function struct{ Name string } `json:"function"`
		}
		json.Unmarshal(raw, &spec)
		names[spec.Function.Name] = true
	}
	sent := 0
	for _, c := range p.Tokens.Tools {
		if c.Sent {
			sent++
			if !names[c.Name] {
				t.Errorf("%s counted as sent but not among the tools", c.Name)
			}
		}
	}
	if p.Model != "qwen3:8b" || p.Tier != 1 || p.ToolMode != "native" || !names["edit_file"] || sent != len(p.Tools) ||
		!strings.Contains(p.System, "You are tern") || p.Tokens.Request <= p.Tokens.System || len(p.Tokens.ByTier) != 4 {
		t.Errorf("tern prompt --json = %+v", p)
	}
}

// In the TUI too a server failure comes with what to do about it.
func TestTUIServerErrorHasHint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	crash := ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerTerminated}
	f.srv.Script(crash, crash)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, done := f.startTUIWith(ctx, 160, 40)
	waitScreen(t, sim, "qwen3:8b │ tier 0")
	typeLine(sim, "hi")
	waitScreen(t, sim, "model runner crashed: llama runner process has terminated", "(the same again when retried)",
		"Ollama's server log says why", "try a smaller --ctx or model")
	quit(t, sim, done)
}

// TestTUIModelRefusesAnEmbeddingModel: /model NAME of an embedding model
// is refused before anything changes, as docs/tui.md says. Ollama's list
// of models carries no capabilities, so the TUI used to say it was
// switching, try, fail, and only then say why.
func TestTUIModelRefusesAnEmbeddingModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sim, _ := f.startTUIWith(ctx, 100, 30)
	waitScreen(t, sim, "new session")
	for _, r := range "/model nomic-embed-text" {
		sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	screen := waitScreen(t, sim, "nomic-embed-text:latest cannot chat (it is an embedding model); staying on qwen3:8b")
	if strings.Contains(screen, "switching to") {
		t.Errorf("/model said it was switching to an embedding model:\n%s", screen)
	}
	for _, r := range "/model" {
		sim.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	sim.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, sim, "tools thinking", "embedding")
}
