package agent

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tools"
)

// recovered is one reply after the repair pipeline: the plan of its calls
// (how each was recovered, which are answered ahead, with what notes) and
// what the user may be shown.
type recovered struct {
	plan callPlan
	// shown is the reply's text without call text, for the Message event.
	shown string
	// broken says why call-like text in a reply without calls could not
	// be read; brokenTool names what it seemed to call (or, for a
	// refusal, the tool that does what it refused).
	broken, brokenTool string
	// kind is what the reply is (models.ReadReply); why says, for a reply
	// that is not plain prose, what it holds instead.
	kind models.ReplyKind
	why  string
}

// recoverCalls runs the repair pipeline over an assistant reply of turn t
// and plans its calls. The recovered calls replace the reply's own (with
// names and arguments mended), and call text leaves its content, so that
// the history shows valid calls the model can imitate. Calls that cannot
// run are answered ahead with their problem; the loop guard screens the
// rest.
//
// A reply whose text holds no call, and says nothing or only announces an
// action, is searched for calls in its thinking: models plan the call there
// and never write it out. Thinking weighs options ("I could write_file {…}
// — no, first read_file {…}"), so only its last call is taken: the one the
// model settled on. A reply cut at the output limit (doneReason
// "length") has its calls answered with a correction instead of run.
func (a *Agent) recoverCalls(t *turn, m *models.Message, doneReason string) recovered {
	restricted := t.guard.takeRestriction()

	rec := a.read(*m)
	out := recovered{shown: rec.Rest, kind: rec.Kind, why: rec.Why}
	if len(rec.Calls) == 0 && rec.Broken == "" && len(m.ToolCalls) == 0 && m.Thinking != "" &&
		(strings.TrimSpace(rec.Rest) == "" || announcesAction(rec.Rest)) {
		if th := models.RepairReply(models.Message{Role: models.RoleAssistant, Content: m.Thinking}, a.allSpecs()); len(th.Calls) > 0 {
			last := th.Calls[len(th.Calls)-1]
			last.Fixes = append(last.Fixes, RepairThinking)
			rec.Calls, out.kind = []models.RepairedCall{last}, models.ReplyCalls
		}
	}
	if len(rec.Calls) == 0 {
		out.broken, out.brokenTool = rec.Broken, rec.BrokenTool
		if rec.Kind == models.ReplyNotProse || rec.Kind == models.ReplyRefusal {
			out.brokenTool = rec.Tool
		}
		if a.constrained() && rec.Broken == "" {
			m.Content = rec.Rest // the answer, out of its JSON
		}
		return out
	}
	m.ToolCalls, m.Content = nil, rec.Rest
	for _, c := range rec.Calls {
		// tern numbers every call itself: servers leave ids out, or send
		// the same one in every reply ("call_0"), and the history, the
		// store and the TUI need one id per call.
		a.callSeq++
		c.ID = fmt.Sprintf("call_%d", a.callSeq)
		m.ToolCalls = append(m.ToolCalls, c.ToolCall)
		p := plannedCall{call: c.ToolCall, repair: c.Repair()}
		if c.UnknownTool {
			if _, ok := a.tools.Get(c.Name); ok {
				// A tool not on offer, such as one of a locked tier: the
				// toolbox answers for it (with how to unlock it).
				c.Problem = ""
			}
		}
		if c.Problem != "" {
			p.answerAhead(tools.Result{Output: c.Problem, IsError: true, Summary: InvalidCall})
		}
		if len(c.Notes) > 0 {
			p.notes = c.Notes
		}
		out.plan.calls = append(out.plan.calls, p)
	}
	if rec.Broken != "" {
		last := &out.plan.calls[len(out.plan.calls)-1]
		last.notes = append(last.notes, "another call in your reply could not be read: "+rec.Broken)
	}
	if doneReason == "length" {
		refuseCut(out.plan)
	}
	a.screen(t, out.plan, restricted)
	return out
}

// Labels in the session's tool-call records that per-model metrics (tern
// eval) count: InvalidCall is the summary of a call that could not run as
// written (unknown tool, bad arguments, unreadable text), and
// RepairUnreadable the repair label of call text no repair could read.
const (
	InvalidCall      = "invalid call"
	RepairUnreadable = "unreadable"
	// RepairThinking ends the repair label of a call found in the reply's
	// thinking rather than its text.
	RepairThinking = "thinking"
)

// allSpecs are the specifications of every tool in the toolbox.
func (a *Agent) allSpecs() []models.ToolSpec {
	all := a.tools.All()
	specs := make([]models.ToolSpec, len(all))
	for i, t := range all {
		specs[i] = t.Spec()
	}
	return specs
}

// exampleCall is one valid call for a correction: of the tool the model
// seemed to want, else of the first tool, in its family's call format
// (which is also what Ollama's parser expects of it natively).
func (a *Agent) exampleCall(tool string) string {
	specs := a.allSpecs()
	if len(specs) == 0 {
		return ""
	}
	spec := specs[0]
	if name := models.ResolveToolName(tool, models.ToolNames(specs)); name != "" {
		for _, s := range specs {
			if s.Name == name {
				spec = s
			}
		}
	}
	return models.FormatCall(a.callFormat(), spec.Name, models.ExampleArgs(spec))
}

// noCalls decides what follows a reply without calls. A normal answer ends
// the turn. Call text that could not be read, an empty reply and thinking
// cut at its budget each get a short correction and another request,
// escalating as the guard decides. more is false when the turn ends.
func (a *Agent) noCalls(ctx context.Context, t *turn, rec recovered, reply models.Reply, send func(Event)) (more bool, err error) {
	var n prompts.Nudge
	var kind loopKind
	// byServer: the server's own parser rejected the call. Its parser reads
	// a constrained reply too, so such failures do not argue for that mode.
	byServer := t.unparsed != ""
	if byServer {
		rec.broken, t.unparsed = t.unparsed, ""
	}
	switch {
	case rec.broken != "" || rec.kind == models.ReplyNotProse:
		// Not an answer, and no call could be read from it: one short
		// correction in the session's call format, and, in auto, the
		// constrained mode once that happened twice.
		kind = kindBroken
		n = prompts.Nudge{Kind: prompts.NudgeBrokenCall, Problem: rec.broken, Example: a.exampleCall(rec.brokenTool)}
		if rec.broken == "" {
			n.Kind, n.Problem = prompts.NudgeNotProse, rec.why
		}
		a.recordUnreadable(ctx, rec)
		if !byServer {
			a.mode.unread++
			if a.maybeConstrain(ctx, send) {
				// A new protocol deserves fresh corrections.
				t.guard.strikes[kindBroken] = 0
				n.Example = a.exampleCall(rec.brokenTool)
			}
		}
	case rec.kind == models.ReplyRefusal && !t.guard.intentNudged && len(a.tools.All()) > 0:
		// It says it cannot do what its tools do: one reminder a turn.
		t.guard.intentNudged = true
		msg, err := prompts.RenderNudge(prompts.Nudge{Kind: prompts.NudgeRefusal,
			Problem: strings.Join(a.offeredNames(t), ", "), Example: a.exampleCall(rec.brokenTool)})
		if err != nil {
			return false, err
		}
		send(Notice{Level: Info, Text: "the model said it cannot do what its tools do; reminding it of its tools"})
		if err := a.append(ctx, t, models.Message{Role: models.RoleUser, Content: msg}); err != nil {
			return false, err
		}
		return true, nil
	case reply.DoneReason == models.DoneRepetition:
		kind = kindWords
		n = prompts.Nudge{Kind: prompts.NudgeRepetition}
	case reply.DoneReason == doneThinkingCap:
		kind = kindThinking
		n = prompts.Nudge{Kind: prompts.NudgeThinking}
		t.guard.thinkOff = true
	case strings.TrimSpace(rec.shown) == "":
		kind = kindEmpty
		n = prompts.Nudge{Kind: prompts.NudgeEmpty, Example: a.exampleCall("")}
	default:
		in, ok := a.intentNudge(t, rec.shown)
		if !ok {
			return false, nil
		}
		msg, err := prompts.RenderNudge(in)
		if err != nil {
			return false, err
		}
		send(Notice{Level: Info, Text: "the model said what it would do but called no tool; asking it to make the call"})
		if err := a.append(ctx, t, models.Message{Role: models.RoleUser, Content: msg}); err != nil {
			return false, err
		}
		return true, nil
	}
	step := t.guard.strike(kind)
	if step == escalateStop && a.escalateStuck(t, kind, send) {
		step = escalateNudge // the other model reads the correction
	}
	if step == escalateStop {
		send(Notice{Level: Warn, Text: stuckText(kind)})
		t.done.Reason = DoneStuck
		return false, nil
	}
	if step == escalateRestrict {
		n.Tools, n.Reminder = a.restrictNext(t), true
	}
	msg, err := prompts.RenderNudge(n)
	if err != nil {
		return false, err
	}
	level := Info
	if kind == kindWords {
		level = Warn // the user saw the reply run on; say plainly why it stopped
	}
	send(Notice{Level: level, Text: kind.notice()})
	if err := a.append(ctx, t, models.Message{Role: models.RoleUser, Content: msg}); err != nil {
		return false, err
	}
	return true, nil
}

// offeredNames are the names of the tools turn t's next request offers.
func (a *Agent) offeredNames(t *turn) []string {
	var names []string
	for _, tl := range a.offered(t, a.tools.All()) {
		names = append(names, tl.Spec().Name)
	}
	return names
}

// recordUnreadable records call text that could not be read as an invalid
// call, so that per-model metrics count it.
func (a *Agent) recordUnreadable(ctx context.Context, rec recovered) {
	name := rec.brokenTool
	if name == "" {
		name = "?"
	}
	r := session.ToolCallRecord{Name: name, Args: []byte("{}"), Output: cmp.Or(rec.broken, rec.why), IsError: true,
		Summary: InvalidCall, Repair: RepairUnreadable}
	if err := a.rec.RecordToolCall(context.WithoutCancel(ctx), a.cfg.SessionID, r); err != nil {
		a.log.Error("record unreadable call", "err", err)
	}
}

// shownAfterHold is the part of held-back streamed text the user may see
// once the reply is complete: none of it if it was call text.
func (a *Agent) shownAfterHold(held string) string {
	rec := a.read(models.Message{Role: models.RoleAssistant, Content: held})
	if len(rec.Calls) == 0 && rec.Broken == "" && !a.constrained() {
		return held
	}
	return rec.Rest
}
