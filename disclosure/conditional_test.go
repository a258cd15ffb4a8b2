package disclosure

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/ternhq/tern/tools"
)

// waitingTool is a tool that needs something that may not be there yet:
// a language server.
type waitingTool struct {
	fakeTool
	ready *atomic.Bool
}

func (w *waitingTool) Available() bool { return w.ready.Load() }
func (w *waitingTool) Needs() string   { return "a language server" }

// TestAToolIsOfferedOnceWhatItNeedsRuns: definition and references are
// in tier 0 but held back until a language server runs; then they join
// the end of the list (the prefix before them unchanged), the user is
// told, the session remembers them, and they stay.
func TestAToolIsOfferedOnceWhatItNeedsRuns(t *testing.T) {
	var ready atomic.Bool
	var saved []State
	tiers := fakeTiers()
	tiers[Read] = append(tiers[Read], &waitingTool{fakeTool{name: "definition"}, &ready}, &waitingTool{fakeTool{name: "references"}, &ready})
	s, err := New(Config{Tools: tiers, Start: Read, Max: External, Intents: defaultIntents(t),
		Save: func(_ context.Context, st State) error { saved = append(saved, st); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	before := names(s.All())
	if slices.Contains(before, "definition") {
		t.Fatalf("offered before a server runs: %v", before)
	}
	// The model may call it anyway: it runs, and says itself what it lacks.
	if tool, ok := s.Get("definition"); !ok || tool.Run(t.Context(), tools.Input{}).Output != "definition ran" {
		t.Errorf("a held-back tool of an unlocked tier does not run")
	}
	s.Notices()

	ready.Store(true)
	after := names(s.All())
	if want := append(slices.Clone(before), "definition", "references"); !slices.Equal(after, want) {
		t.Errorf("tools = %v, want %v (appended, the prefix kept)", after, want)
	}
	if n := s.Notices(); len(n) != 1 || n[0] != "definition, references unlocked — a language server runs" {
		t.Errorf("notices = %q", n)
	}
	if len(saved) != 1 || !slices.Contains(saved[0].Tools, "references") {
		t.Errorf("saved %+v; want the state with them", saved)
	}
	ready.Store(false)
	if got := names(s.All()); !slices.Equal(got, after) {
		t.Errorf("tools = %v after the server stopped; want them kept, %v", got, after)
	}
	// Raising the tier keeps them where they are and appends tier 1.
	if err := s.SetTier(t.Context(), Edit, "test"); err != nil {
		t.Fatal(err)
	}
	if got := names(s.All()); !slices.Equal(got[:len(after)], after) {
		t.Errorf("tools = %v after an unlock; want %v first", got, after)
	}
}
