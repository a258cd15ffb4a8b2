package tui

import (
	"context"
	"fmt"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/agent"
)

// Planner is plan mode (Shift+Tab, /plan): turns in which the model may
// only read and that end with a plan, which the user accepts (the tier
// goes up to 1 or 2, the plan is pinned in the model's window as the goal
// and carried out) or sends back with a comment. *agent.Agent satisfies
// it. Its methods are called between turns only; the two that run turns
// are jobs, as Run is.
type Planner interface {
	PlanMode() bool
	SetPlanMode(on bool)
	// Goal is the accepted plan pinned in the window ("" if none), and
	// ProposedPlan the plan awaiting the user's answer ("" if none).
	Goal() string
	ProposedPlan() string
	RevisePlan(ctx context.Context, comment string, emit func(agent.Event)) error
	AcceptPlan(ctx context.Context, note string, emit func(agent.Event)) error
}

// togglePlan is Shift+Tab and /plan: plan mode on or off.
func (a *App) togglePlan() {
	if a.back == nil || a.back.Planner == nil {
		a.warn("plan mode is not available in this build")
		return
	}
	if a.job != nil {
		a.warn("plan mode changes between turns; wait, or press Ctrl+C to cancel")
		return
	}
	on := !a.back.Planner.PlanMode()
	a.back.Planner.SetPlanMode(on)
	a.readPlan()
	if on {
		a.note("plan mode on: the model only reads (explore included) and ends with a plan you accept or send back · Shift+Tab leaves it")
		return
	}
	a.plan = ""
	a.note("plan mode off: the model has the tools of tier " + fmt.Sprint(a.tier) + " again")
}

// readPlan shows the backend's plan mode in the prompt's label and the
// status bar.
func (a *App) readPlan() {
	a.planMode = a.back != nil && a.back.Planner != nil && a.back.Planner.PlanMode()
	a.goal = a.back != nil && a.back.Planner != nil && a.back.Planner.Goal() != ""
	if a.planMode {
		a.input.SetLabel("plan › ")
	} else {
		a.input.SetLabel("› ")
	}
}

// cmdPlan is /plan: it answers a plan that awaits an answer (in plan
// mode: one a resumed session left waiting turns it on), else it toggles
// plan mode.
func (a *App) cmdPlan(string) {
	if a.plan != "" && a.job == nil && a.back != nil && a.back.Planner != nil {
		if !a.planMode {
			a.back.Planner.SetPlanMode(true)
			a.readPlan()
		}
		a.planDialog()
		return
	}
	a.togglePlan()
}

// resumePlan takes up a plan a resumed session left waiting for an answer.
func (a *App) resumePlan() {
	if a.back == nil || a.back.Planner == nil {
		return
	}
	if a.plan = a.back.Planner.ProposedPlan(); a.plan != "" {
		a.note("this session has a plan waiting for your answer: /plan opens it")
	}
}

// planReady keeps the plan a turn ended with; the dialog opens once the
// turn is over (jobDone).
func (a *App) planReady(plan string) {
	a.plan, a.planAsk = plan, true
}

// planDialog shows the proposed plan: 1 or 2 accepts it at that tier, s
// sends it back with a comment, Esc keeps planning (typing then sends the
// plan back with what is typed; /plan opens this again).
func (a *App) planDialog() {
	th := a.th
	plan := a.plan
	preview := newConvo(th, 2000)
	preview.follow = false
	preview.add(&block{kind: kindAssistant, short: a.md.render(plan)})
	question := newKeyBar(th, a.guardLead,
		hint{"1", "accept, tier 1 (edit)"}, hint{"2", "accept, tier 2 (commands)"}, hint{"s", "send back"},
		hint{"Esc", "keep planning"}, hint{"PgUp/PgDn", "scroll"})
	box := a.newDialogBox("The plan", preview, question)
	comment := a.newEntry("Comment for the model:", hint{"Enter", "send the plan back"}, hint{"Esc", "keep planning"})
	comment.field.SetDoneFunc(func(key tcell.Key) {
		text := comment.field.GetText()
		if key != tcell.KeyEnter || text == "" {
			return
		}
		a.modalClose = nil
		a.closeModal()
		a.sendPlanBack(text)
	})
	question.SetInputCapture(pageOrRune(preview, func(r rune) {
		switch r {
		case '1', '2':
			a.modalClose = nil
			a.closeModal()
			a.acceptPlan(int(r - '0'))
		case 's', 'S':
			box.swap(a, comment)
		}
	}))
	a.openModal("plan", box, question, 9, 8, true, func() {
		a.note("still planning: type a comment to send the plan back, /plan to answer it, Shift+Tab to leave plan mode")
	})
}

// acceptPlan raises the tier to tier (unless it is higher already) and
// has the model carry the plan out, pinned as its goal.
func (a *App) acceptPlan(tier int) {
	if !a.ready("accept the plan") {
		return
	}
	if a.tier < tier && !a.setTier(tier) {
		a.note("the plan is kept; /plan answers it again")
		return
	}
	p := a.back.Planner
	a.plan = ""
	a.beginTurn(fmt.Sprintf("(plan accepted at tier %d: carry it out)", max(tier, a.tier)), false)
	a.runPlanJob(func(ctx context.Context) error { return p.AcceptPlan(ctx, "", a.pump.emit) })
}

// sendPlanBack runs a plan turn on the user's comment.
func (a *App) sendPlanBack(comment string) {
	if !a.ready("send the plan back") {
		return
	}
	p := a.back.Planner
	a.plan = ""
	a.beginTurn("(plan sent back) "+comment, false)
	a.runPlanJob(func(ctx context.Context) error { return p.RevisePlan(ctx, comment, a.pump.emit) })
}

// runPlanJob runs a turn of the planner as the job.
func (a *App) runPlanJob(turn func(ctx context.Context) error) {
	a.talked = true
	ctx := a.startJob("generating")
	a.background(func() {
		err := turn(ctx)
		a.pump.post(func() { a.jobDone(err) })
	})
}
