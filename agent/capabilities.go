package agent

import (
	"context"

	"github.com/ternhq/tern/models"
)

// A dependency may do more than the interface the agent takes it by: the
// toolbox may read prompts, the recorder may keep settings, the counter
// may bound counts. These are the
// extras the agent looks for, by type assertion, and does without when a
// dependency lacks them (a test's fake, a subagent's toolbox). Each has one
// to three methods. cmd/tern checks at compile time that the concrete
// types it wires have them (cmd/tern/capabilities.go), so that a renamed
// method fails the build instead of silently turning a feature off. A
// tool's own extra, tools.Reviewer, is checked where each tool is defined.

// PromptReader is a toolbox that reads each user prompt and may offer more
// tools for it; *disclosure.Set satisfies it.
type PromptReader interface {
	OnPrompt(ctx context.Context, prompt string)
}

// Noticer is a toolbox with news for the user: tools unlocked, a
// checkpoint taken. *disclosure.Set satisfies it.
type Noticer interface {
	Notices() []string
}

// HistoryReplacer is a recorder that can swap the active history for a
// compacted one, keeping the old messages on record; *session.Store is one.
// Without it, compaction changes only what the model is sent.
type HistoryReplacer interface {
	ReplaceHistory(ctx context.Context, sessionID string, msgs []models.Message) error
}

// PartialSaver is a recorder that keeps the reply in flight, so that a
// crash loses at most the last moments of it; *session.Store satisfies it.
// A recorder without it keeps only whole messages.
type PartialSaver interface {
	SavePartial(ctx context.Context, sessionID, text string) error
}

// MetaRecorder is a recorder that keeps session settings: the tool mode a
// session moved to, the plans of plan mode; *session.Store has it.
type MetaRecorder interface {
	SetMeta(ctx context.Context, sessionID, key, value string) error
}

// SubStore is a recorder that keeps a subagent's messages apart from the
// session's active history; *session.Store satisfies it.
type SubStore interface {
	AppendSubMessage(ctx context.Context, sessionID, callID string, m models.Message) error
}

// BoundingCounter is a token counter that can also bound a count without
// counting, and prepare to count in the background. *budget.Counter is
// one: its encoder takes about 100 ms of CPU to build, which a one-turn
// `tern ask` need not spend before its first request (see settle).
type BoundingCounter interface {
	MessageBound(m models.Message) int
	Warm() error
}
