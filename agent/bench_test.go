package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// instantModel answers at once, so a benchmark measures the agent alone.
type instantModel struct{}

func (instantModel) Chat(_ context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error) {
	onDelta(models.Delta{Content: "ok"})
	return models.Reply{Message: models.Message{Role: models.RoleAssistant, Content: "ok"}, DoneReason: "stop",
		Metrics: models.Metrics{PromptTokens: 1000, EvalTokens: 1}}, nil
}

// BenchmarkTurnOverhead measures what tern adds to one model request in a
// 30-message session: assembling the request inside the window, persisting
// the prompt, the reply and the turn metrics in SQLite, and the events.
func BenchmarkTurnOverhead(b *testing.B) {
	ctx := context.Background()
	store, err := session.Open(ctx, filepath.Join(b.TempDir(), "tern.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	sess, err := store.Create(ctx, "bench", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var history []models.Message
	for i := range 15 {
		history = append(history,
			models.Message{Role: models.RoleUser, Content: fmt.Sprintf("question %d: %s", i, strings.Repeat("how does the parser work? ", 8))},
			models.Message{Role: models.RoleAssistant, Content: strings.Repeat("The parser reads tokens and builds a tree. ", 20)})
	}
	ws, err := tools.NewWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	c := counter(b)
	set := tools.NewSet(tools.ReadOnlyTools(ws)...)
	a := New(Config{SessionID: sess.ID, Model: "bench", NumCtx: 8192, System: "You are a test.", History: history},
		instantModel{}, set, store, nil, c)
	a.PrefixTokens() // counted once per session, not per turn
	for b.Loop() {
		// Each turn starts from the same 30 messages.
		a.history, a.costs = a.history[:len(history)], a.costs[:len(history)]
		if err := a.Run(ctx, "and the lexer?", func(Event) {}); err != nil {
			b.Fatal(err)
		}
	}
}
