package tui

import "testing"

// TestEscalateWithoutModel: /escalate with no escalation model says how to
// configure one, and the status bar stays the session's.
func TestEscalateWithoutModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.send("/escalate")
	h.waitFor("no model to escalate to: set escalate_model in the config")
	var armed string
	h.onLoop(func() { armed = h.app.escalateArmed })
	if armed != "" {
		t.Error("armed an escalation without a model")
	}
}
