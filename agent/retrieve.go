package agent

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
)

// This file adds retrieved repository code to a turn when RAG is on. The
// code is looked up once per user prompt, not per request, so every
// request of the turn carries the same bytes and the server's prompt
// cache keeps working within the turn. It travels as a user message just
// before the question it was found for: the system prompt, the tools and
// the earlier history stay byte-identical from turn to turn (a second
// system message would not: Ollama's templates merge system messages into
// the first one, at the very start of the prompt), and a small model reads
// the code right before what it is asked about it. It is sent with its
// turn only and never stored: the next prompt gets its own.

// Retriever finds repository code that bears on a prompt; cmd/tern
// implements it over the index.
type Retriever interface {
	// Retrieve renders the code found for query within budget tokens (by
	// the agent's counter), or "" when nothing was found. note, when set,
	// is for the user: what was added, or why retrieval is limited.
	Retrieve(ctx context.Context, query string, budget int) (text, note string, err error)
}

// DefaultRAGShare is the share of the window retrieved code may take.
const DefaultRAGShare = 0.15

// retrieval is the repository code of one turn (turn.ret).
type retrieval struct {
	msg  models.Message
	cost int
	// question is the history content of the prompt msg precedes.
	question string
}

// RAG reports whether each prompt gets retrieved repository code.
func (a *Agent) RAG() bool { return a.rag && a.cfg.Retriever != nil }

// SetRAG turns retrieval on or off from the next prompt on. It does
// nothing without a Retriever. Do not call it while Run is running.
func (a *Agent) SetRAG(on bool) { a.rag = on }

// retrieve looks up code for the prompt just appended to the history when
// RAG is on, for turn t. A failed lookup is a warning: the turn goes on
// without it. It returns an error only when ctx ends.
func (a *Agent) retrieve(ctx context.Context, t *turn, prompt string, send func(Event)) error {
	t.ret = retrieval{}
	if !a.RAG() {
		return nil
	}
	a.settle(t) // retrieval fills what the room leaves, by count
	frame, err := prompts.RenderRetrieved("")
	if err != nil {
		return err
	}
	header := a.counter.MessageTokens(models.Message{Role: models.RoleUser, Content: frame})
	share := a.cfg.RAGShare
	if share <= 0 {
		share = DefaultRAGShare
	}
	// The conversation keeps at least half of its room.
	limit := min(a.win.Share(share), a.room(t)/2)
	budget := a.win.Tern(limit) - header
	if budget < 64 {
		return nil
	}
	text, note, err := a.cfg.Retriever.Retrieve(ctx, prompt, budget)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		send(Notice{Level: Warn, Text: fmt.Sprintf("retrieval failed (%v); this prompt goes without repository code", err)})
		return nil
	}
	if note != "" {
		send(Notice{Level: Info, Text: note})
	}
	if text == "" {
		return nil
	}
	content, err := prompts.RenderRetrieved(text)
	if err != nil {
		return err
	}
	msg := models.Message{Role: models.RoleUser, Content: content}
	t.ret = retrieval{msg: msg, cost: a.counter.MessageTokens(msg), question: a.history[len(a.history)-1].Content}
	return nil
}

// withRetrieval returns msgs with the turn's retrieved code inserted before
// its question; msgs is not changed.
func (t *turn) withRetrieval(msgs []models.Message) []models.Message {
	if t.codeCost() == 0 {
		return msgs
	}
	at := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == models.RoleUser && msgs[i].Content == t.ret.question {
			at = i
			break
		}
	}
	if at < 0 {
		// The question was cut to fit the window: there is no room for
		// more than the turn itself.
		return msgs
	}
	out := make([]models.Message, 0, len(msgs)+1)
	out = append(out, msgs[:at]...)
	out = append(out, t.ret.msg)
	return append(out, msgs[at:]...)
}
