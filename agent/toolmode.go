package agent

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
)

// When native tool calls keep failing for a model, the agent falls back to
// the text tool protocol: the tools are described in the system prompt and
// the calls parsed from the reply, where the repair pipeline can read what
// the server could not.

// switchAfterParseErrors is how many tool calls the server could not
// parse (an HTTP 500 of that shape, or call text its parser dropped) move
// a session to the text protocol.
const switchAfterParseErrors = 2

// toolMode is the session's tool protocol state.
type toolMode struct {
	// switched is set once the session fell back to the text protocol.
	switched    bool
	parseErrors int
	// unread counts the corrected replies that were neither an answer nor
	// a readable call; constrained is set once the session moved to the
	// constrained mode.
	unread      int
	constrained bool
	// textSystem caches the text-protocol system prompt for textFor tools.
	textSystem string
	textFor    string
}

// textTools reports whether turn t's next request (nil: any request
// between turns) uses the text tool protocol.
func (a *Agent) textTools(t *turn) bool {
	return a.cfg.TextTools || a.mode.switched || t.textOnce() || a.constrained()
}

// TextTools reports whether the session uses the text tool protocol, from
// the start or since it fell back to it.
func (a *Agent) TextTools() bool { return a.cfg.TextTools || a.mode.switched || a.constrained() }

// textSystemPrompt is the system prompt followed by the text protocol's
// description of specs, rendered once per tool list.
func (a *Agent) textSystemPrompt(specs []models.ToolSpec) string {
	key := fmt.Sprint(a.callFormat(), models.ToolNames(specs), a.goalText)
	if a.mode.textFor == key && a.mode.textSystem != "" {
		return a.mode.textSystem
	}
	block, err := prompts.TextToolsBlock(specs, a.callFormat())
	if err != nil {
		a.log.Error("render text tools", "err", err)
	}
	a.mode.textSystem, a.mode.textFor = a.system()+block, key
	return a.mode.textSystem
}

// retryAsText answers a tool call the server could not read
// (models.ErrToolParse, or a call its parser dropped): the request is made
// once more in the text protocol, where tern parses the raw text itself.
// why says what happened, for the user.
func (a *Agent) retryAsText(ctx context.Context, t *turn, send func(Event), why string) (models.Reply, *Usage, error) {
	t.retries++
	send(Notice{Level: Warn, Text: why + "; retrying in the text tool protocol"})
	t.asText = true
	reply, usage, err := a.step(ctx, t, send)
	t.asText = false
	a.serverParseFailed(ctx, send)
	return reply, usage, err
}

// serverParseFailed counts a tool call the server could not parse, and
// moves the session to the text tool protocol, where the server parses
// nothing, at the second.
func (a *Agent) serverParseFailed(ctx context.Context, send func(Event)) {
	a.mode.parseErrors++
	if a.mode.parseErrors >= switchAfterParseErrors {
		a.switchToText(ctx, send, fmt.Sprintf("the server failed to parse %s's tool calls %d times", a.cfg.Model, a.mode.parseErrors))
	}
}

// MetaToolMode is the session setting that records a fall back to the text
// tool protocol ("text") or the constrained mode ("constrained"), and
// MetaToolModeWhy says why; tern reads them to
// start later sessions of the same model in text mode.
const (
	MetaToolMode    = "tool_mode"
	MetaToolModeWhy = "tool_mode_reason"
)

// recentSessions is how many recent sessions LastFallback searches.
const recentSessions = 20

// sessionLog is what LastFallback reads of the session store;
// *session.Store satisfies it.
type sessionLog interface {
	List(ctx context.Context, limit int) ([]session.Session, error)
	Meta(ctx context.Context, sessionID, key string) (string, bool, error)
}

// LastFallback finds the newest recent session in which model fell back
// to the text tool protocol or the constrained mode, as the agent recorded
// it (MetaToolMode), so that a new session of that model can start there.
// A store that cannot be read recalls nothing.
func LastFallback(ctx context.Context, store sessionLog, model string) (models.Fallback, bool) {
	list, err := store.List(ctx, recentSessions)
	if err != nil {
		return models.Fallback{}, false
	}
	for _, s := range list {
		if s.Model != model {
			continue
		}
		if v, set, err := store.Meta(ctx, s.ID, MetaToolMode); err == nil && set && (v == models.ToolModeText || v == models.ToolModeConstrained) {
			why, _, _ := store.Meta(ctx, s.ID, MetaToolModeWhy)
			return models.Fallback{Session: s.ID, Mode: v, Why: why}, true
		}
	}
	return models.Fallback{}, false
}

// switchToText moves the rest of the session to the text tool protocol,
// unless the tool mode was asked for.
func (a *Agent) switchToText(ctx context.Context, send func(Event), why string) {
	if a.TextTools() || a.cfg.FixedToolMode {
		return
	}
	a.mode.switched = true
	send(Notice{Level: Warn, Text: why + "; switching to the text tool protocol for the rest of the session (force with --tool-mode native)"})
	a.recordMode(ctx, "text", why)
}

// recordMode keeps the session's move to another tool mode, and why.
func (a *Agent) recordMode(ctx context.Context, mode, why string) {
	if a.escalated {
		return // the session's model did not fall back: the escalation model did
	}
	if m, ok := a.rec.(MetaRecorder); ok {
		ctx = context.WithoutCancel(ctx)
		if err := m.SetMeta(ctx, a.cfg.SessionID, MetaToolMode, mode); err != nil {
			a.log.Error("record tool mode", "err", err)
		}
		if err := m.SetMeta(ctx, a.cfg.SessionID, MetaToolModeWhy, why); err != nil {
			a.log.Error("record tool mode", "err", err)
		}
	}
}
