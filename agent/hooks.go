package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// readPrompt lets the toolbox see the user's prompt before the request is
// made, and passes on what it has to say.
func (a *Agent) readPrompt(ctx context.Context, prompt string, send func(Event)) {
	if r, ok := a.tools.(PromptReader); ok {
		r.OnPrompt(ctx, prompt)
	}
	a.relayNotices(send)
}

// relayNotices turns the toolbox's news into Notice events.
func (a *Agent) relayNotices(send func(Event)) {
	n, ok := a.tools.(Noticer)
	if !ok {
		return
	}
	for _, text := range n.Notices() {
		send(Notice{Level: Info, Text: text})
	}
}

// review asks a tool that can tell what a call would do; other tools get
// an empty review.
func review(ctx context.Context, t tools.Tool, args json.RawMessage) tools.Review {
	if r, ok := t.(tools.Reviewer); ok {
		return r.Review(ctx, args)
	}
	return tools.Review{}
}

// toolKey names a tool list, to tell when the prefix changed: it grows
// when tools unlock, and changes shape when the tier is lowered.
func toolKey(specs []models.ToolSpec) string {
	var b strings.Builder
	for _, s := range specs {
		b.WriteString(s.Name)
		b.WriteByte(0)
	}
	return b.String()
}

// Describe says what a call of the tool named name is about, for people:
// the tool's own word for it (tools.Describe), the tool found as the call
// would find it. The TUI heads each call's line with it.
func (a *Agent) Describe(name string, args json.RawMessage) string {
	t, _ := a.lookup(name)
	return tools.Describe(t, args)
}
