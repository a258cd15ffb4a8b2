package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestOfflineThenOllamaAppears(t *testing.T) {
	t.Parallel()
	search := &fakeSearch{hits: []SearchHit{{Path: "main.go", StartLine: 3, EndLine: 3, Symbol: "main", Score: 0.9, Snippet: "func main() {}"}}}
	h := newHarness(t, offline(), withDeps(func(d *Deps) { d.Search = search }))
	s := h.waitFor("offline", "cannot reach Ollama at http://127.0.0.1:1: start it with `ollama serve`", "tern retries every")
	if !strings.Contains(statusBar(s), "offline") {
		t.Errorf("the status bar does not say offline: %s", statusBar(s))
	}
	h.send("hello?")
	h.waitFor("cannot send a prompt: the model is offline")
	if got := h.inputText(); got != "hello?" {
		t.Errorf("a refused prompt was not kept for later: %q", got)
	}
	h.onLoop(func() { h.app.input.SetText("", false) })

	// Search works without the model.
	h.send("/search main")
	h.waitFor("search: main", "main.go:3", "func main() {}")
	h.key(tcell.KeyEnter)
	h.waitFor("› @main.go:3 ")

	h.up()
	s = h.waitFor("Ollama is back", "new session")
	if strings.Contains(s, "Meanwhile /search") {
		t.Errorf("the offline message stayed after connecting:\n%s", s)
	}
	if strings.Contains(statusBar(s), "offline") {
		t.Errorf("the status bar still says offline: %s", statusBar(s))
	}
}

func TestLostConnectionReconnectsToTheSameSession(t *testing.T) {
	t.Parallel()
	var failed atomic.Bool
	h := newHarness(t, withDeps(func(d *Deps) {
		inner := d.Connect
		d.Connect = func(ctx context.Context, req ConnectRequest) (*Backend, error) {
			b, err := inner(ctx, req)
			if b != nil && !failed.Load() {
				b.Agent = failingRunner{&failed}
			}
			return b, err
		}
	}))
	h.online()
	first := h.sessionID()
	h.send("hi")
	h.waitFor("model server unreachable")
	h.waitUntil("reconnecting", func() bool { return h.app.back != nil && h.app.back.SessionID == first && h.app.job == nil })
	h.srv.Script(ollamatest.Reply{Content: "Back again."})
	h.send("hi again")
	h.waitFor("Back again.")
}

// failingRunner fails its first turn as when Ollama stops.
type failingRunner struct{ failed *atomic.Bool }

func (f failingRunner) Run(ctx context.Context, prompt string, emit func(agent.Event)) error {
	f.failed.Store(true)
	err := fmt.Errorf("ollama chat qwen3:8b: %w at http://127.0.0.1:1: connection refused", models.ErrUnreachable)
	emit(agent.Done{Reason: agent.DoneError, Error: err.Error()})
	return err
}

func TestHelpAndUnknownCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.typeText("?")
	h.waitFor("═ help ═", "cycle the tool tier", "Esc close")
	for range 3 {
		h.key(tcell.KeyPgDn)
	}
	h.waitFor("/search QUERY", "/init")
	h.key(tcell.KeyEscape)
	h.waitGone("═ help ═")
	h.send("/nope")
	h.waitFor("unknown command /nope; /help lists the commands")
	if got := h.inputText(); got != "/nope" {
		t.Errorf("a mistyped command was not kept for fixing: %q", got)
	}
	h.onLoop(func() { h.app.input.SetText("", false) })
	h.send("/help")
	h.waitFor("═ help ═")
	h.key(tcell.KeyEscape)
	h.waitGone("═ help ═")
}

func TestUnavailableFeaturesSaySo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	for cmd, want := range map[string]string{
		"/compact":    "/compact is not available in this build",
		"/undo":       "/undo is not available in this build",
		"/index":      "/index: the repository index is not available in this build yet",
		"/search foo": "/search: the repository index is not available in this build yet",
		"/init":       "/init is not available here",
	} {
		h.send(cmd)
		h.waitFor(want)
	}
	h.key(tcell.KeyCtrlR)
	h.waitFor("RAG is not available in this build")
}

func TestCommandsWithCapabilities(t *testing.T) {
	t.Parallel()
	comp, undo, rag := fakeCompactor{}, &fakeUndo{}, &fakeRAG{}
	idx := &fakeIndex{}
	h := newHarness(t,
		withDeps(func(d *Deps) {
			d.Index = idx
			d.Doctor = func(context.Context) (string, error) { return "Ollama      ✓ fake (version 0.17.4)\n", nil }
			inner := d.Connect
			d.Connect = func(ctx context.Context, req ConnectRequest) (*Backend, error) {
				b, err := inner(ctx, req)
				if b != nil {
					b.Compactor, b.Undoer, b.RAG = comp, undo, rag
				}
				return b, err
			}
		}))
	h.online()
	h.waitFor("RAG off")
	h.key(tcell.KeyCtrlR)
	h.waitFor("RAG on", "RAG on: each prompt carries the repository code")
	h.send("/compact")
	h.waitFor("summarised 3 turns")
	h.idle()
	h.send("/undo")
	h.waitFor("undo: take back the last turn?", "› add a file", "  main.go", "Delete 1 file the turn created:", "  new.txt")
	h.typeText("n")
	h.waitFor("undo cancelled; nothing was changed")
	if undo.applied {
		t.Fatal("n restored the checkpoint")
	}
	h.send("/undo")
	h.waitFor("undo: take back the last turn?")
	h.typeText("y")
	h.waitFor("restored 2 files")
	if !undo.applied {
		t.Fatal("y did not restore the checkpoint")
	}
	h.idle()
	h.send("/index")
	h.waitFor("indexed 3 files")
	h.send("/doctor")
	h.waitFor("Ollama      ✓ fake (version 0.17.4)")
	h.send("/tools")
	h.waitFor("tool list is not available")
}

func TestModelsAndSessions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	first := h.sessionID()
	h.srv.Script(ollamatest.Reply{Content: "First answer."})
	h.send("first question")
	h.waitFor("First answer.")
	h.idle()

	h.send("/model") // the harness's backend is not Ollama's: its models are the server's
	h.waitFor("Models the server offers (switch with /model NAME):", "▸ qwen3:8b")
	h.send("/new")
	h.waitUntil("a new session", func() bool { return h.app.back.SessionID != first && h.app.job == nil })
	h.waitGone("First answer.")

	h.key(tcell.KeyCtrlS)
	h.waitFor("═ sessions ═", "Enter resume", first, "first question")
	h.key(tcell.KeyDown) // the list is newest first: the new session, then the first
	h.key(tcell.KeyEnter)
	h.waitUntil("resuming", func() bool { return h.app.back.SessionID == first && h.app.job == nil })
	h.waitFor("› first question", "First answer.", "resumed session "+first)

	h.send("/resume nope")
	h.waitFor(`no session "nope" in this workspace; /sessions lists them`)
}

func TestInitDraftsNotes(t *testing.T) {
	t.Parallel()
	notes := &fakeNotes{}
	h := newHarness(t, withDeps(func(d *Deps) { d.Notes = notes }))
	h.online()
	h.srv.Script(ollamatest.Reply{Content: "```markdown\n# Notes\n\nRun `go test ./...`.\n```"})
	h.send("/init")
	h.waitFor("AGENTS.md draft", "Run go test ./....", "y write AGENTS.md")
	h.typeText("y")
	h.waitFor("wrote /repo/AGENTS.md")
	if notes.content != "# Notes\n\nRun `go test ./...`.\n" {
		t.Errorf("notes written = %q", notes.content)
	}
	if got := h.srv.Requests()[0].Messages; !strings.Contains(got[len(got)-1].Content, "AGENTS.md") {
		t.Errorf("the model was not asked for AGENTS.md: %q", got[len(got)-1].Content)
	}
}

func TestPromptHistoryAndNewlines(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.srv.Script(ollamatest.Reply{Content: "One."}, ollamatest.Reply{Content: "Two."})
	h.send("line one\nline two")
	h.waitFor("› line one", "  line two", "One.")
	h.idle()
	h.send("second")
	h.waitFor("Two.")
	h.idle()
	h.key(tcell.KeyUp)
	h.waitUntil("recalling the last prompt", func() bool { return h.app.input.GetText() == "second" })
	h.key(tcell.KeyUp)
	h.waitUntil("recalling the first prompt", func() bool { return h.app.input.GetText() == "line one\nline two" })
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.waitUntil("back to the draft", func() bool { return h.app.input.GetText() == "" })
}

func TestSlashCompletion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.typeText("/se")
	h.waitFor("/sessions", "/search QUERY", "(Tab completes)")
	h.typeText("a")
	h.key(tcell.KeyTab)
	h.waitUntil("completion", func() bool { return h.app.input.GetText() == "/search " })
	h.waitFor("/search QUERY — search the repository")
}

type fakeSearch struct{ hits []SearchHit }

func (f *fakeSearch) Search(_ context.Context, q string, k int) ([]SearchHit, error) {
	return f.hits, nil
}

type fakeCompactor struct{}

func (fakeCompactor) Compact(_ context.Context, emit func(agent.Event)) error {
	emit(agent.Notice{Level: agent.Info, Text: "summarised 3 turns into 120 tokens"})
	return nil
}

type fakeUndo struct {
	applied bool
	turns   int
}

func (f *fakeUndo) BeginTurn() { f.turns++ }

func (f *fakeUndo) PlanUndo(context.Context) (UndoPlan, error) {
	return UndoPlan{Prompt: "add a file", Restore: []string{"main.go", "README.md"}, Delete: []string{"new.txt"}}, nil
}

func (f *fakeUndo) Undo(_ context.Context, plan UndoPlan) (string, error) {
	f.applied = true
	return fmt.Sprintf("restored %d files", len(plan.Restore)), nil
}

type fakeRAG struct{ on bool }

func (f *fakeRAG) RAG() bool { return f.on }

func (f *fakeRAG) SetRAG(on bool) (string, error) {
	f.on = on
	return "", nil
}

type fakeIndex struct{}

func (fakeIndex) Index(_ context.Context, progress func(IndexProgress)) (string, error) {
	for i := 1; i <= 3; i++ {
		progress(IndexProgress{Done: i, Total: 3, Path: fmt.Sprintf("f%d.go", i)})
	}
	return "indexed 3 files", nil
}

type fakeNotes struct{ content string }

func (f *fakeNotes) Prompt() string { return "Write an AGENTS.md for this repository." }

func (f *fakeNotes) WriteNotes(content string) (string, error) {
	if f.content != "" {
		return "", errors.New("written twice")
	}
	f.content = content
	return "/repo/AGENTS.md", nil
}

// TestIndexProgressLine: each step of /index says what it does and
// counts in its own unit, so embedding chunks after reading files is a
// step of its own, not the file count's bar jumping back.
func TestIndexProgressLine(t *testing.T) {
	t.Parallel()
	th := newTheme(false)
	for _, tt := range []struct {
		p    IndexProgress
		want string
	}{
		{IndexProgress{Done: 12, Total: 40, Path: "main.go"}, "· indexing ▮▮▮▮▮▮▯▯▯▯▯▯▯▯▯▯▯▯▯▯ 12/40 files · main.go"},
		{IndexProgress{Done: 40, Total: 40, Unit: "files", Step: "step 1 of 2: reading files"}, "· step 1 of 2: reading files ▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮ 40/40 files"},
		{IndexProgress{Done: 128, Total: 1024, Unit: "chunks", Step: "step 2 of 2: embedding with nomic-embed-text"},
			"· step 2 of 2: embedding with nomic-embed-text ▮▮▯▯▯▯▯▯▯▯▯▯▯▯▯▯▯▯▯▯ 128/1024 chunks"},
	} {
		if got := progressLine(th, tt.p).plain(); got != tt.want {
			t.Errorf("progressLine(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestModelSwitchChecksTheName: /model NAME says it switches only to an
// installed chat model, offers the near names of one that is not, and
// says so when the switch fails: tern stays on the model it had.
func TestModelSwitchChecksTheName(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDeps(func(d *Deps) {
		inner := d.Connect
		d.Connect = func(ctx context.Context, req ConnectRequest) (*Backend, error) {
			if req.Model == "broken:1b" {
				return nil, errors.New("ollama show broken:1b: model failed to load")
			}
			b, err := inner(ctx, req)
			if b != nil {
				b.Ollama = true
				b.Installed = []models.ModelInfo{{Name: "qwen3:8b"}, {Name: "qwen3:4b"}, {Name: "llama3.2:3b"}, {Name: "broken:1b"},
					{Name: "nomic-embed-text:latest", Capabilities: []models.Capability{models.CapEmbedding}}}
				if req.Model != "" {
					b.Model = req.Model
				}
			}
			return b, err
		}
	}))
	h.online()
	h.resize(200, 30) // each message on one row
	h.send("/model")
	h.waitFor("Installed models (switch with /model NAME):", "▸ qwen3:8b", "nomic-embed-text:latest")
	h.send("/model qwen3")
	h.waitFor("no model qwen3 is installed (did you mean qwen3:8b or qwen3:4b?); `ollama pull qwen3` fetches it; staying on qwen3:8b")
	h.send("/model nomic-embed-text")
	h.waitFor("nomic-embed-text:latest cannot chat (it is an embedding model); staying on qwen3:8b")
	h.send("/model mistral")
	h.waitFor("no model mistral is installed; installed: qwen3:8b, qwen3:4b, llama3.2:3b, broken:1b; `ollama pull mistral`")
	h.send("/model broken:1b")
	s := h.waitFor("could not switch to broken:1b: ollama show broken:1b: model failed to load", "staying on qwen3:8b")
	if strings.Contains(s, "switching to qwen3") || strings.Contains(s, "switching to mistral") || strings.Contains(statusBar(s), "broken") {
		t.Errorf("a refused name was switched to:\n%s", s)
	}
	h.send("/model llama3.2:3b")
	h.waitFor("switching to llama3.2:3b", "with llama3.2:3b")
	h.waitUntil("the new model", func() bool { return h.app.back.Model == "llama3.2:3b" && h.app.job == nil })
}
