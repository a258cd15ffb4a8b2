package main

import (
	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/session"
)

// The agent looks for some capabilities of its dependencies by type
// assertion (agent/capabilities.go). These lines make the types tern wires
// (here and in runner.Open) keep them: a method renamed on either side
// fails the build instead of silently turning off tier unlocks, saved
// compactions, crash-safe replies, remembered tool modes, plans, subagent
// transcripts or the fast start.
var (
	_ agent.PromptReader = (*disclosure.Set)(nil)
	_ agent.Noticer      = (*disclosure.Set)(nil)

	_ agent.HistoryReplacer  = (*session.Store)(nil)
	_ agent.PartialSaver     = (*session.Store)(nil)
	_ agent.MetaRecorder     = (*session.Store)(nil)
	_ agent.SubStore         = (*session.Store)(nil)
	_ agent.CalibrationStore = (*session.Store)(nil)

	_ agent.BoundingCounter = (*budget.Counter)(nil)
)
