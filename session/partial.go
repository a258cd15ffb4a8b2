package session

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/models"
)

// partialKey holds, in a session's settings, the text of the reply being
// streamed, so that a crash (kill -9, power loss) loses at most the last
// moment of it.
const partialKey = "partial_reply"

// interruptedNote ends a recovered reply, so the model (and the reader)
// know it was cut off.
const interruptedNote = "\n[interrupted: tern stopped while this reply was streaming]"

// SavePartial records the text streamed so far of the reply in flight; ""
// clears it once the reply is saved as a message.
func (s *Store) SavePartial(ctx context.Context, sessionID, text string) error {
	return s.SetMeta(ctx, sessionID, partialKey, text)
}

// RecoverPartial appends to the history a reply that was still streaming
// when tern stopped, marked as interrupted, and clears it. It reports
// whether there was one.
func (s *Store) RecoverPartial(ctx context.Context, sessionID string) (bool, error) {
	text, ok, err := s.Meta(ctx, sessionID, partialKey)
	if err != nil || !ok || text == "" {
		return false, err
	}
	if err := s.AppendMessage(ctx, sessionID, models.Message{Role: models.RoleAssistant, Content: text + interruptedNote}); err != nil {
		return false, fmt.Errorf("recover the interrupted reply: %w", err)
	}
	return true, s.SetMeta(ctx, sessionID, partialKey, "")
}
