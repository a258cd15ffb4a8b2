package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// This file is plan mode. While it is on, each turn may only read (the
// read-only tools, explore among them; not request_tools, which would
// unlock more) and the user's words go to the model wrapped in the plan
// prompt, so the turn ends with a plan. The user then accepts the plan
// (AcceptPlan: it is pinned in the prompt as the goal, after the system
// prompt, where neither the budget's cuts nor compaction reach it, and the
// model is asked to carry it out) or sends it back with a comment
// (RevisePlan). Raising the tier on acceptance is the caller's part.

// Session meta keys under which a plan mode session keeps its plans, when
// the recorder can (MetaRecorder).
const (
	MetaGoal     = "plan_goal"     // the accepted plan, pinned in the prompt
	MetaProposed = "plan_proposed" // the plan awaiting the user's answer
)

// PlanAccepted begins what the user is shown (models.Message.Shown) of
// the turn that carries an accepted plan out, before any note of theirs:
// a transcript read back finds the acceptance by it.
const PlanAccepted = "(plan accepted: carry it out)"

// unlocker names the read-only tool plan mode withholds: it would unlock
// the tiers the user chooses on accepting the plan.
const unlocker = "request_tools"

// ErrNoPlan is returned by AcceptPlan and RevisePlan when no turn in plan
// mode has ended with a plan yet.
var ErrNoPlan = errors.New("no plan to answer: ask for one in plan mode first")

// PlanReady is the plan a turn in plan mode ended with; it comes just
// before Done. The user accepts it or sends it back.
type PlanReady struct {
	Plan string `json:"plan"`
}

func (PlanReady) Type() string { return "plan" }

// PlanMode reports whether plan mode is on.
func (a *Agent) PlanMode() bool { return a.planMode }

// SetPlanMode turns plan mode on or off between turns. The tools offered
// change with it, so the next request starts a new prompt prefix.
func (a *Agent) SetPlanMode(on bool) { a.planMode = on }

// ProposedPlan is the plan the last turn in plan mode ended with, while
// the user has not answered it ("" if there is none).
func (a *Agent) ProposedPlan() string { return a.proposed }

// Goal is the accepted plan pinned in the prompt ("" if there is none).
func (a *Agent) Goal() string { return a.goal }

// RevisePlan sends the proposed plan back with the user's comment: a turn
// in plan mode that ends with the whole revised plan.
func (a *Agent) RevisePlan(ctx context.Context, comment string, emit func(Event)) error {
	if a.proposed == "" {
		return ErrNoPlan
	}
	a.planMode = true
	text, err := prompts.RenderPlan(prompts.PlanRevise, prompts.Plan{Prompt: strings.TrimSpace(comment)})
	if err != nil {
		return err
	}
	return a.planTurn(ctx, text, comment, strings.TrimSpace("(plan sent back) "+comment), emit)
}

// AcceptPlan pins the proposed plan as the goal, leaves plan mode and runs
// the turn that carries the plan out; note is what the user adds, if
// anything. The tools are those the toolbox offers by then: raise the tier
// before.
func (a *Agent) AcceptPlan(ctx context.Context, note string, emit func(Event)) error {
	if a.proposed == "" {
		return ErrNoPlan
	}
	note = strings.TrimSpace(note)
	text, err := prompts.RenderPlan(prompts.PlanGo, prompts.Plan{Prompt: note})
	if err != nil {
		return err
	}
	if err := a.pin(ctx, a.proposed); err != nil {
		return err
	}
	a.planMode = false
	a.setProposed(ctx, "")
	return a.runTurn(ctx, text, note, strings.TrimSpace(PlanAccepted+" "+note), false, emit)
}

// pin makes plan the goal pinned in the prompt, cut to an eighth of the
// window, and keeps it in the session.
func (a *Agent) pin(ctx context.Context, plan string) error {
	a.setGoal(plan)
	if ms, ok := a.rec.(MetaRecorder); ok {
		if err := ms.SetMeta(context.WithoutCancel(ctx), a.cfg.SessionID, MetaGoal, plan); err != nil {
			return fmt.Errorf("save the goal: %w", err)
		}
	}
	return nil
}

// setGoal renders the pinned goal for the prompt.
func (a *Agent) setGoal(plan string) {
	a.goal, a.goalText = plan, ""
	if plan == "" {
		return
	}
	cut := cutReport(a.counter, strings.TrimSpace(plan), max(a.win.Size()/8, 256))
	text, err := prompts.RenderPlan(prompts.PlanGoal, prompts.Plan{Plan: cut})
	if err != nil {
		a.log.Error("render goal", "err", err)
		text = "Goal:\n" + cut
	}
	a.goalText = strings.TrimSpace(text)
}

// setProposed records the plan awaiting an answer, in the session too.
func (a *Agent) setProposed(ctx context.Context, plan string) {
	a.proposed = plan
	if ms, ok := a.rec.(MetaRecorder); ok {
		if err := ms.SetMeta(context.WithoutCancel(ctx), a.cfg.SessionID, MetaProposed, plan); err != nil {
			a.log.Error("save the proposed plan", "err", err)
		}
	}
}

// system is the system prompt with the pinned goal, if any.
func (a *Agent) system() string {
	if a.goalText == "" {
		return a.cfg.System
	}
	return strings.TrimRight(a.cfg.System, "\n") + "\n\n" + a.goalText + "\n"
}

// planTurn runs a turn in plan mode on text, the user's words already in
// the plan prompt; words are theirs alone, shown what the user sees of
// the message. The answer it ends with becomes the proposed plan,
// announced by a PlanReady event before Done.
func (a *Agent) planTurn(ctx context.Context, text, words, shown string, emit func(Event)) error {
	var answer string
	return a.runTurn(ctx, text, words, shown, false, func(e Event) {
		switch e := e.(type) {
		case Message:
			answer = ""
			if len(e.Message.ToolCalls) == 0 {
				answer = strings.TrimSpace(e.Message.Content)
			}
		case Done:
			if e.Reason == DoneStop && answer != "" {
				a.setProposed(ctx, answer)
				emit(PlanReady{Plan: answer})
			}
		}
		emit(e)
	})
}

// planTools filters the tools of a request in plan mode: the read-only
// ones without the unlocker.
func planTools(all []tools.Tool) []tools.Tool {
	var ro []tools.Tool
	for _, t := range all {
		if t.Effect() == tools.ReadOnly && t.Spec().Name != unlocker {
			ro = append(ro, t)
		}
	}
	return ro
}

// planRefuses answers, in plan mode, a call of a tool the request did not
// offer, instead of running it; it reports whether it did.
func (a *Agent) planRefuses(p *plannedCall) bool {
	if !a.planMode {
		return false
	}
	c := p.call
	name := c.Name
	if t, ok := a.lookup(name); ok {
		name = t.Spec().Name
	}
	for _, t := range planTools(a.tools.All()) {
		if t.Spec().Name == name {
			return false
		}
	}
	msg, err := prompts.RenderPlan(prompts.PlanRefused, prompts.Plan{Prompt: c.Name})
	if err != nil {
		msg = "Not run: plan mode allows only the read-only tools."
	}
	p.answerAhead(tools.Result{IsError: true, Summary: "not run: plan mode", Output: strings.TrimSpace(msg)})
	return true
}
