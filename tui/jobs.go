package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/models"
)

// startJob marks the agent busy with kind and returns the job's context.
func (a *App) startJob(kind string) context.Context {
	ctx, cancel := a.jobContext()
	a.job = &job{kind: kind, cancel: cancel, start: a.now()}
	a.rate = 0
	a.pump.spin(true)
	return ctx
}

// endJob marks the agent idle again.
func (a *App) endJob() {
	if a.job != nil {
		a.job.cancel()
	}
	a.job = nil
	a.subagent, a.activity = "", ""
	a.pump.spin(false)
	if a.hint == "cancelling…" || strings.HasPrefix(a.hint, "queued; ") {
		a.setHint("")
	}
	a.drainQueue()
}

// startTurn runs the agent on prompt in the background.
func (a *App) startTurn(prompt string) {
	a.talked = true
	ctx := a.startJob("generating")
	runner := a.back.Agent
	a.background(func() {
		err := runner.Run(ctx, prompt, a.pump.emit)
		a.pump.post(func() { a.jobDone(err) })
	})
}

// turnDone shows how a turn ended. It comes from the Done event, before
// jobDone.
func (a *App) turnDone(e agent.Done) {
	a.escalationDone(e)
	switch e.Reason {
	case agent.DoneCanceled:
		a.note("cancelled; what was said is kept in the session")
	case agent.DoneError:
		if e.Error != "" {
			a.fail(e.Error)
		}
	}
	if e.Turns > 0 {
		// What the turn cost: requests, tokens in and cached, out, time.
		a.conv.add(&block{kind: kindNotice, short: []line{styledLine("· "+e.Summary(), a.th.dim)}})
	}
}

// jobDone ends a job. An unreachable model sends the TUI offline; it
// reconnects to the same session when Ollama answers again.
func (a *App) jobDone(err error) {
	a.endJob()
	a.refreshTier()
	if err != nil && a.back != nil && a.back.Hint != nil && !errors.Is(err, models.ErrUnreachable) && !errors.Is(err, context.Canceled) {
		if hint := a.back.Hint(err); hint != "" {
			a.warn(hint)
		}
	}
	a.readPlan()
	if a.planAsk {
		a.planAsk = false
		if err == nil && a.plan != "" && a.planMode && a.modal == "" {
			a.planDialog()
		}
	}
	if err == nil || a.back == nil || !errors.Is(err, models.ErrUnreachable) {
		return
	}
	req := ConnectRequest{Model: a.back.Model, Resume: a.back.SessionID, Approver: a}
	a.warn("Ollama stopped answering; tern reconnects to session " + req.Resume + " when it is back")
	a.back.close()
	a.back = nil
	a.startConnect(req)
}

// startConnect tries to open a session until it succeeds, showing why it
// cannot meanwhile. A new call replaces an earlier loop.
func (a *App) startConnect(req ConnectRequest) {
	if a.connCancel != nil {
		a.connCancel()
	}
	req.Approver, req.Asker = a, a
	a.req = req
	if a.conn != offlineState {
		a.conn = connecting
	}
	ctx, cancel := a.jobContext()
	a.connCancel = cancel
	a.connGen++
	gen := a.connGen
	a.background(func() {
		defer cancel()
		for {
			b, err := a.deps.Connect(ctx, req)
			if err == nil {
				blocks := historyBlocks(a.th, a.md, b.History, b.Calls, b.Describe)
				a.pump.post(func() { a.online(gen, b, blocks) })
				return
			}
			if ctx.Err() != nil {
				return
			}
			msg := err.Error()
			a.pump.post(func() { a.setOffline(gen, msg) })
			select {
			case <-ctx.Done():
				return
			case <-time.After(a.cfg.RetryEvery):
			case <-a.retryNow:
			}
		}
	})
}

// online installs a connected backend, unless the loop that found it was
// replaced meanwhile.
func (a *App) online(gen int, b *Backend, history []*block) {
	if a.quitting || gen != a.connGen {
		b.close()
		return
	}
	was := a.conn
	a.connCancel = nil
	a.install(b)
	a.conv.remove("offline")
	if was == offlineState {
		a.note("Ollama is back")
	}
	for _, h := range history {
		a.conv.add(h)
	}
	a.announce(b)
	a.drainQueue()
	if !a.tierSet && a.cfg.Tier > 0 && a.cfg.Tier != a.tier {
		a.setTier(a.cfg.Tier)
	}
	if !a.tierSet && a.cfg.Plan && !a.planMode {
		a.togglePlan()
	}
	a.tierSet = true
}

// install makes b the current backend and reads its state.
func (a *App) install(b *Backend) {
	a.back, a.conn = b, online
	a.talked = len(b.History) > 0
	a.window, a.used, a.calibrated = b.NumCtx, b.PrefixTokens, false
	a.tier, a.tools = 0, nil
	a.refreshTier()
	a.rag = b.RAG != nil && b.RAG.RAG()
	a.plan, a.planAsk = "", false
	a.readPlan()
}

// announce says which model and session are in use.
func (a *App) announce(b *Backend) {
	what := "new session"
	if len(b.History) > 0 {
		what = "resumed session"
	}
	how := ""
	if b.Why != "" && b.Why != "requested" {
		how = " (" + b.Why + "; /model lists the others)"
	}
	a.note(fmt.Sprintf("%s %s with %s%s, %s-token window", what, b.SessionID, b.Model, how, kilo(b.NumCtx)))
	for _, n := range b.Notices {
		a.note(n)
	}
	a.resumePlan()
}

// setOffline shows why the model cannot be reached and what fixes it.
func (a *App) setOffline(gen int, msg string) {
	if gen != a.connGen || a.back != nil {
		return
	}
	a.conn = offlineState
	if msg == a.offline {
		return
	}
	a.offline = msg
	lines := textLines(msg, a.th.errorText)
	lines[0].spans = append([]span{{text: "✗ ", style: a.th.errorText}}, lines[0].spans...)
	lines = append(lines,
		styledLine(fmt.Sprintf("  tern retries every %s. Meanwhile /search, /index, /sessions and /doctor work.", a.cfg.RetryEvery), a.th.dim))
	for i := range lines {
		lines[i].hang = 2
	}
	a.conv.set("offline", kindNotice, lines, nil)
	a.conv.toEnd()
}

// switchBackend opens another session or model; the current one stays
// until the new one is ready. failed, when set, says what became of a
// switch that could not be made; else the error is shown as it is.
func (a *App) switchBackend(req ConnectRequest, failed func(error)) {
	req.Approver, req.Asker = a, a
	ctx := a.startJob("connecting")
	a.background(func() {
		b, err := a.deps.Connect(ctx, req)
		var blocks []*block
		if err == nil {
			blocks = historyBlocks(a.th, a.md, b.History, b.Calls, b.Describe)
		}
		a.pump.post(func() {
			a.endJob()
			switch {
			case err != nil && failed != nil:
				failed(err)
				return
			case err != nil:
				a.fail(err.Error())
				return
			}
			if a.quitting {
				b.close()
				return
			}
			old, planning := a.back, a.planMode
			a.install(b)
			old.close()
			if planning && old != nil && b.SessionID == old.SessionID && b.Planner != nil {
				b.Planner.SetPlanMode(true) // another model, the same session: still planning
				a.readPlan()
			}
			if old == nil || b.SessionID != old.SessionID {
				a.conv.clear()
				for _, h := range blocks {
					a.conv.add(h)
				}
			}
			a.announce(b)
		})
	})
}

// cmdCompact runs the compactor as a job.
func (a *App) cmdCompact() {
	if !a.ready("compact") {
		return
	}
	c := a.back.Compactor
	if c == nil {
		a.warn("/compact is not available in this build: conversation compaction has not landed yet")
		return
	}
	ctx := a.startJob("compacting")
	a.background(func() {
		err := c.Compact(ctx, a.pump.emit)
		a.pump.post(func() {
			a.jobDone(err)
			if err != nil {
				a.fail("compact: " + err.Error())
				return
			}
			a.calibrated = false // the agent's notice said what was done
		})
	})
}

// cmdUndo shows what taking back the last turn would change and, once the
// user agrees, takes it back.
func (a *App) cmdUndo() {
	if !a.ready("undo") {
		return
	}
	u := a.back.Undoer
	if u == nil {
		a.warn("/undo is not available in this build: write tools and checkpoints have not landed yet")
		return
	}
	if a.undone {
		a.note("nothing more to undo: /undo takes back the last turn only, once (`tern undo` restores the whole session's files)")
		return
	}
	ctx := a.startJob("undoing")
	a.background(func() {
		plan, err := u.PlanUndo(ctx)
		a.pump.post(func() {
			a.endJob()
			switch {
			case err != nil:
				a.fail("undo: " + err.Error())
			case plan.empty():
				a.note("nothing to undo: no turn to take back (`tern undo` restores a whole session's files)")
			default:
				a.undoDialog(u, plan)
			}
		})
	})
}

// applyUndo takes back the last turn after the user agreed: its files,
// its lines in the conversation, and its prompt back into the prompt.
func (a *App) applyUndo(u Undoer, plan UndoPlan) {
	if !a.ready("undo") {
		return
	}
	ctx := a.startJob("undoing")
	a.background(func() {
		msg, err := u.Undo(ctx, plan)
		a.pump.post(func() {
			a.endJob()
			if err != nil {
				a.fail("undo: " + err.Error())
				return
			}
			if i := slices.Index(a.conv.blocks, a.turnBlock); i >= 0 && a.turnBlock != nil {
				a.conv.blocks = a.conv.blocks[:i] // the turn's lines
				a.conv.sel = -1
			}
			if a.turnTyped != "" && strings.TrimSpace(a.input.GetText()) == "" {
				a.input.SetText(a.turnTyped, true)
			}
			a.turnBlock, a.turnTyped, a.undone = nil, "", true
			a.note(msg)
		})
	})
}

// beginTurn shows the prompt of a turn that starts, remembering its block
// (and, typed, the words the user typed) for /undo, and marks the start
// for the backend's undoer.
func (a *App) beginTurn(prompt string, typed bool) {
	a.turnTyped, a.undone = "", false
	if typed {
		a.turnTyped = prompt
	}
	a.turnBlock = &block{kind: kindUser, short: userLines(a.th, prompt)}
	a.conv.add(a.turnBlock)
	a.conv.toEnd()
	if a.back != nil && a.back.Undoer != nil {
		a.back.Undoer.BeginTurn()
	}
}
