package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

func TestPromptStreamsAnswerWithToolLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	before := statusBar(h.waitFor("qwen3:8b", "~"))
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
		ollamatest.Reply{Content: "It is a **demo** repository.\n\n```go\nx := m[\"k\"] // [red]not a tag[-]\n```\n"},
	)
	h.send("what is this?")
	s := h.waitFor("› what is this?", "✓ read_file README.md:1-2", "It is a demo repository.", `x := m["k"] // [red]not a tag[-]`)
	if strings.Contains(s, "**") {
		t.Errorf("Markdown emphasis was not rendered:\n%s", s)
	}
	h.idle()
	after := statusBar(h.screen())
	tokens := regexp.MustCompile(`~?[\d.]+k?/8\.2k tok`)
	if tokens.FindString(before) == tokens.FindString(after) || strings.Contains(tokens.FindString(after), "~") {
		t.Errorf("the token count did not become Ollama's count:\nbefore %s\nafter  %s", before, after)
	}
}

func TestToolLineOpensToItsOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"main.go"}`}}},
		ollamatest.Reply{Content: "A main package."},
	)
	h.send("read main.go")
	h.waitFor("✓ read_file main.go:1-3", "A main package.")
	h.idle()
	if s := h.screen(); strings.Contains(s, `println("hi")`) {
		t.Fatalf("the output shows before the call is opened:\n%s", s)
	}
	h.key(tcell.KeyTab) // focus the conversation; the newest call is selected
	h.key(tcell.KeyEnter)
	h.waitFor(`func main() { println("hi") }`)
	h.key(tcell.KeyEnter)
	h.waitGone(`println("hi")`)
	h.key(tcell.KeyEscape)
	h.waitUntil("focus back on the prompt", func() bool { return h.app.input.HasFocus() })
}

func TestStreamingShowsSpinnerAndRate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	chunks := make([]string, 60)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("w%d ", i)
	}
	h.srv.Script(ollamatest.Reply{Chunks: chunks, ChunkDelay: 15 * time.Millisecond})
	h.send("count")
	// The reply shows as it streams: its first words are on the screen
	// while the spinner still runs (waitFor fails the test otherwise).
	s := h.waitFor("generating", "tok/s", "w1 ")
	if strings.Contains(s, "w59") {
		t.Errorf("the whole reply arrived before the screen showed any of it:\n%s", s)
	}
	h.waitFor("w59")
	h.idle()
	h.waitGone("generating")
}

func TestCtrlTChangesTier(t *testing.T) {
	t.Parallel()
	tiers := &fakeTiers{}
	h := newHarness(t, withTiers(tiers))
	h.online()
	h.waitFor("tier 0")
	h.key(tcell.KeyCtrlT)
	s := h.waitFor("tier 1", "+edit_file write_file")
	if !strings.Contains(s, "tier 1: +edit_file write_file") {
		t.Errorf("no notice of the change:\n%s", s)
	}
	h.key(tcell.KeyCtrlT)
	h.key(tcell.KeyCtrlT)
	h.waitFor("tier 3")
	h.key(tcell.KeyCtrlT)
	s = h.waitFor("tier 0", "fresh prompt prefix")
	if got := tiers.set; fmt.Sprint(got) != "[1 2 3 0]" {
		t.Errorf("SetTier calls = %v", got)
	}
	// Only lowering the tier (3 to 0) throws away the prompt prefix; the
	// notice names the tools left.
	if n := strings.Count(s, "fresh prompt prefix"); n != 1 {
		t.Errorf("%d notices of a fresh prompt prefix after three raises and one lowering, want 1:\n%s", n, s)
	}
	if !strings.Contains(s, "tier 0: read_file list_dir grep glob; lowering the tier") {
		t.Errorf("the notice of tier 0 does not name its tools:\n%s", s)
	}
	if bar := statusBar(s); !strings.Contains(bar, "tier 0") || strings.Contains(bar, "+") {
		t.Errorf("the status bar does not show tier 0 without added tools: %q", bar)
	}
	h.send("/tier 2")
	h.waitFor("tier 2 ")
	h.send("/tier 9")
	h.waitFor("usage: /tier N")
}

func TestTierWithoutTierControl(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.key(tcell.KeyCtrlT)
	h.waitFor("tiers are not available in this build")
}

func TestCtrlCCancelsSlowStreamAndStaysResponsive(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	chunks := make([]string, 400)
	for i := range chunks {
		chunks[i] = "slow "
	}
	h.srv.Script(ollamatest.Reply{Chunks: chunks, ChunkDelay: 25 * time.Millisecond})
	h.send("talk slowly")
	h.waitFor("slow slow slow")
	h.key(tcell.KeyCtrlC)
	h.waitFor("cancelled; what was said is kept in the session")
	h.idle()

	h.srv.Script(ollamatest.Reply{Content: "Still here."})
	h.send("are you there?")
	h.waitFor("Still here.")
	select {
	case err := <-h.done:
		t.Fatalf("Ctrl+C during a turn quit the TUI: %v", err)
	default:
	}
}

func TestCtrlQQuitsDuringTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	chunks := make([]string, 400)
	for i := range chunks {
		chunks[i] = "slow "
	}
	h.srv.Script(ollamatest.Reply{Chunks: chunks, ChunkDelay: 25 * time.Millisecond})
	h.send("talk slowly")
	h.waitFor("slow slow")
	h.key(tcell.KeyCtrlQ)
	select {
	case <-h.done:
		h.done <- nil
	case <-time.After(wait):
		t.Fatal("Ctrl+Q did not quit")
	}
}

func TestApprovalAcceptsAndDenies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"remember [this]"}`}}},
		ollamatest.Reply{Content: "Noted."},
	)
	h.send("note it")
	h.waitFor("Allow write_note?", "write_note writes files.", "text: remember [this]", "y allow once", "a always allow write_note")
	h.typeText("y")
	h.waitFor("✓ write_note notes.txt (+1 line)", "+remember [this]", "Noted.")
	if n := h.note.written(); n != 1 {
		t.Fatalf("the tool ran %d times after y", n)
	}
	h.idle()

	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"again"}`}}},
		ollamatest.Reply{Content: "Understood, no note."},
	)
	h.send("note again")
	h.waitFor("Allow write_note?", "text: again")
	h.typeText("n")
	h.waitFor("Reason for the model")
	h.send("not now")
	h.waitFor("denied write_note: not now", "Understood, no note.")
	if n := h.note.written(); n != 1 {
		t.Fatalf("the tool ran after n (%d runs)", n)
	}
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, "The user denied this write_note call. Reason: not now") {
		t.Errorf("the model was told %q", got)
	}
}

func TestApprovalAlwaysAndEscape(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"one"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"two"}`}}},
		ollamatest.Reply{Content: "Two notes."},
	)
	h.send("two notes")
	h.waitFor("Allow write_note?")
	h.typeText("a")
	h.waitFor("allowed write_note for the rest of this session", "Two notes.")
	if n := h.note.written(); n != 2 {
		t.Fatalf("%d notes written, want 2 (the second without asking)", n)
	}
	h.idle()

	// A new session forgets "always"; Esc denies.
	first := h.sessionID()
	h.send("/new")
	h.waitUntil("a new session", func() bool { return h.app.back.SessionID != first && h.app.job == nil })
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"three"}`}}},
		ollamatest.Reply{Content: "No note then."},
	)
	h.send("three")
	h.waitFor("Allow write_note?")
	h.key(tcell.KeyEscape)
	h.waitFor("denied write_note", "No note then.")
	if n := h.note.written(); n != 2 {
		t.Fatalf("Esc let the tool run")
	}
}

func TestCtrlCDuringApprovalCancelsTheTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"x"}`}}})
	h.send("note")
	h.waitFor("Allow write_note?")
	h.key(tcell.KeyCtrlC)
	h.waitGone("Allow write_note?")
	h.waitFor("cancelled")
	h.idle()
	if n := h.note.written(); n != 0 {
		t.Fatal("the tool ran after the turn was cancelled")
	}
}

func TestYesAllowsWithoutAsking(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withConfig(func(c *Config) { c.Yes = true }))
	h.online()
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_note", Args: `{"text":"x"}`}}},
		ollamatest.Reply{Content: "Done."},
	)
	h.send("note")
	s := h.waitFor("allowed write_note (--yes)", "Done.")
	if strings.Contains(s, "Allow write_note?") || h.note.written() != 1 {
		t.Errorf("--yes still asked, or the tool did not run:\n%s", s)
	}
}

func TestPasteIsTextNotEnter(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.post(tcell.NewEventPaste(true))
	h.typeText("first")
	h.key(tcell.KeyEnter)
	h.typeText("second")
	h.post(tcell.NewEventPaste(false))
	h.waitUntil("the paste to land in the prompt", func() bool { return h.app.input.GetText() == "first\nsecond" })
	if s := h.screen(); strings.Contains(s, "› first\n") && !strings.Contains(s, "second") {
		t.Errorf("the pasted newline sent the prompt:\n%s", s)
	}
}

func TestStartTier(t *testing.T) {
	t.Parallel()
	tiers := &fakeTiers{}
	h := newHarness(t, withTiers(tiers), withConfig(func(c *Config) { c.Tier = 2 }))
	h.online()
	h.waitFor("tier 2 │", "+run_command git_status")
}

func TestCtrlTWrapsAtTheMaximumTier(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withTiers(&fakeTiers{max: 2}))
	h.online()
	for range 3 {
		h.key(tcell.KeyCtrlT)
	}
	h.waitFor("tier 3: tier 3 is above this session's maximum, 2", "tier 0: read_file")
	h.waitUntil("tier 0 again", func() bool { return h.app.tier == 0 })
}

func TestPromptGrowsWithItsLines(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.typeText("alpha\nbeta\ngamma")
	s := h.waitFor("gamma")
	var rows []string
	for _, r := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		rows = append(rows, strings.TrimRight(r, " "))
	}
	want := []string{"› alpha", "  beta", "  gamma"}
	if got := rows[len(rows)-4 : len(rows)-1]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the prompt's rows are %q, want %q:\n%s", got, want, s)
	}
}

// TestEachTurnEndsWithItsCost: a turn ends with a line of its requests,
// tokens in and the share the prompt cache held (estimated: the fake
// server, as Ollama, does not say), tokens out and time; the second turn
// of a conversation finds most of its prompt cached.
func TestEachTurnEndsWithItsCost(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.resize(60, 30)
	cost := regexp.MustCompile(`· 1 request · [0-9.k]+ in, ~([0-9]+)% cached · [0-9]+ out · [0-9.]+m?s`)
	h.srv.Script(ollamatest.Reply{Content: "First."}, ollamatest.Reply{Content: "Second."})
	h.send("one")
	s := h.waitFor("First.", "% cached")
	if m := cost.FindAllStringSubmatch(s, -1); len(m) != 1 || m[0][1] != "0" {
		t.Fatalf("the first turn's line is not its cost with nothing cached:\n%s", s)
	}
	h.idle()
	h.resize(120, 30)
	h.send("two")
	s = h.waitFor("Second.")
	for deadline := time.Now().Add(wait); len(cost.FindAllString(s, -1)) < 2; s = h.screen() {
		if time.Now().After(deadline) {
			t.Fatalf("the second turn has no cost line:\n%s", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m := cost.FindAllStringSubmatch(s, -1)
	if pct, _ := strconv.Atoi(m[1][1]); pct < 50 {
		t.Errorf("the second turn found %d%% of its prompt cached, want most of it:\n%s", pct, s)
	}
}
