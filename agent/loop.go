package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// Small models get stuck in known ways: the same call again and again, a
// file re-read each time the window drops it, empty replies, thinking
// that never ends, call text that never parses. The guard notices each,
// and escalates per kind: first a specific correction; if it recurs, the
// correction plus one request with only the read-only tools; if it recurs
// again, the turn stops with a notice.

// loopKind names a way of being stuck.
type loopKind string

const (
	kindRepeat   loopKind = "repeat"   // the same call, its result still in view
	kindReread   loopKind = "reread"   // the same call, its results dropped from the window
	kindEmpty    loopKind = "empty"    // a reply with neither text nor calls
	kindThinking loopKind = "thinking" // thinking cut at its budget with no answer
	kindBroken   loopKind = "broken"   // call text that could not be read
	kindWords    loopKind = "words"    // the same words until the server cut the reply
)

// Escalation steps.
const (
	escalateNudge    = 1 // a correction
	escalateRestrict = 2 // a correction and one request with read-only tools
	escalateStop     = 3 // the turn stops
)

// repeatLimit is how many times one call may run with its result in view
// before the guard steps in: the third identical call is not run.
const repeatLimit = 2

// loopGuard is the per-turn state of loop detection. Each turn has its
// own (turn.guard), used from the turn's goroutine only.
type loopGuard struct {
	// runs counts the calls run this turn, by tool and canonical arguments;
	// output is the last result of each.
	runs    map[string]int
	output  map[string]string
	rereads map[string]int
	strikes map[loopKind]int
	// restrict offers only read-only tools in the next request; thinkOff
	// sends it without thinking.
	restrict, thinkOff bool
	// stop, when set, ends the turn once the current calls are answered.
	stop loopKind
	// intentNudged is set once the turn's reply that announced an action
	// (or showed a shell block) instead of calling a tool was nudged.
	intentNudged bool
}

func newGuard() *loopGuard {
	return &loopGuard{runs: map[string]int{}, output: map[string]string{}, rereads: map[string]int{}, strikes: map[loopKind]int{}}
}

// strike records one more occurrence of kind and returns the step to take.
func (g *loopGuard) strike(kind loopKind) int {
	g.strikes[kind]++
	return min(g.strikes[kind], escalateStop)
}

// takeRestriction reports whether the request just answered offered only
// read-only tools, and clears the flag.
func (g *loopGuard) takeRestriction() bool {
	r := g.restrict
	g.restrict = false
	return r
}

// callKey identifies a call by tool and arguments, whatever their order
// and spacing.
func callKey(c models.ToolCall) string {
	var v any
	args := string(c.Arguments)
	if json.Unmarshal(c.Arguments, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = string(b)
		}
	}
	return c.Name + " " + args
}

// screen looks at the planned calls of one reply of turn t before they
// run. Calls that repeat a result still in view, calls beyond the first
// when the model should send one per reply, and calls of tools not offered
// in a restricted request are answered ahead instead of run.
func (a *Agent) screen(t *turn, plan callPlan, restricted bool) {
	g := t.guard
	for i := range plan.calls {
		p := &plan.calls[i]
		if p.preset != nil {
			continue
		}
		if a.planRefuses(p) {
			continue
		}
		c := p.call
		tl, known := a.lookup(c.Name)
		switch {
		case a.cfg.OneToolPerReply && i > 0:
			a.presetNudge(p, prompts.Nudge{Kind: prompts.NudgeOneTool}, "not run: one tool per reply")
			continue
		case restricted && known && tl.Effect() != tools.ReadOnly:
			p.answerAhead(tools.Result{IsError: true, Summary: "not offered",
				Output: fmt.Sprintf("Not run: %s was not available for this reply. Use the read-only tools, or answer.", c.Name)})
			continue
		}
		key := callKey(c)
		n := g.runs[key]
		if n > 0 && !t.inView(g.output[key]) {
			g.rereads[key]++
			if g.rereads[key] >= repeatLimit {
				a.strikeCall(t, p, kindReread, n+1)
			}
		} else if n >= repeatLimit {
			a.strikeCall(t, p, kindRepeat, n+1)
			continue
		}
		g.runs[key]++
		if known && tl.Effect() == tools.Writes {
			// The workspace changed: earlier results may be stale now.
			clear(g.runs)
			clear(g.rereads)
		}
	}
}

// strikeCall answers a call that repeats itself. A repeat in view is not
// run: the correction is its result. A re-read runs (the model needs the
// content back) with the correction before its result.
func (a *Agent) strikeCall(t *turn, p *plannedCall, kind loopKind, count int) {
	g, c := t.guard, p.call
	n := prompts.Nudge{Kind: prompts.NudgeRepeat, Tool: c.Name, Count: count - 1}
	if kind == kindReread {
		n = prompts.Nudge{Kind: prompts.NudgeReread, Tool: c.Name, Count: count - 1}
	}
	switch g.strike(kind) {
	case escalateStop:
		g.stop = kind
		if !a.canEscalate(t) {
			p.answerAhead(tools.Result{Output: "Not run: the turn was stopped.", IsError: true, Summary: "not run: stuck"})
			return
		}
		// Another model takes over (stuck): it reads the correction.
	case escalateRestrict:
		n.Tools, n.Reminder = a.restrictNext(t), true
	}
	if kind == kindReread {
		msg, err := prompts.RenderNudge(n)
		if err == nil {
			p.notes = append(p.notes, msg)
		}
		return
	}
	a.presetNudge(p, n, "not run: repeated call")
}

// presetNudge answers p with a rendered nudge instead of running it.
func (a *Agent) presetNudge(p *plannedCall, n prompts.Nudge, summary string) {
	msg, err := prompts.RenderNudge(n)
	if err != nil {
		msg = "Not run."
		a.log.Error("render nudge", "kind", n.Kind, "err", err)
	}
	p.answerAhead(tools.Result{Output: msg, IsError: true, Summary: summary})
}

// restrictNext makes turn t's next request offer only the read-only tools,
// and returns their names for the correction that says so.
func (a *Agent) restrictNext(t *turn) []string {
	t.guard.restrict = true
	var names []string
	for _, t := range a.tools.All() {
		if t.Effect() == tools.ReadOnly {
			names = append(names, t.Spec().Name)
		}
	}
	return names
}

// offered filters the tools of turn t's next request: all of them, or only
// the read-only ones while its guard restricts.
func (a *Agent) offered(t *turn, all []tools.Tool) []tools.Tool {
	if a.planMode {
		return planTools(all)
	}
	if !t.restricted() {
		return all
	}
	var ro []tools.Tool
	for _, t := range all {
		if t.Effect() == tools.ReadOnly {
			ro = append(ro, t)
		}
	}
	return ro
}

// rememberResult records what a call returned, for re-read detection.
func (t *turn) rememberResult(c models.ToolCall, output string) {
	t.guard.output[callKey(c)] = output
}

// inView reports whether a result was in the last request, whole: not
// dropped to fit the window and not replaced by a compaction stub.
func (t *turn) inView(output string) bool {
	if output == "" {
		return true
	}
	probe := output
	if len(probe) > 512 {
		probe = probe[:512]
	}
	for _, m := range t.sent.Messages {
		if (m.Role == models.RoleTool || m.Role == models.RoleUser) && strings.Contains(m.Content, probe) {
			return true
		}
	}
	return false
}

// stuckText says why a turn stopped, for the user.
func stuckText(kind loopKind) string {
	switch kind {
	case kindRepeat:
		return "stopped: the model kept repeating the same tool call after two corrections; rephrase the request or try another model"
	case kindReread:
		return "stopped: the model kept re-reading what no longer fits the context window; ask for a smaller step or raise --ctx"
	case kindEmpty:
		return "stopped: the model sent empty replies after two corrections"
	case kindThinking:
		return "stopped: the model kept thinking past its budget without answering; try again with thinking off"
	case kindBroken:
		return "stopped: the model could not write a readable tool call after two corrections; try --tool-mode text or a model with better tool support"
	case kindWords:
		return "stopped: the model kept repeating the same words after two corrections; rephrase the request or try another model"
	}
	return "stopped: the model is stuck"
}

// stuckWords names the way of being stuck, for the escalation notice.
func (k loopKind) stuckWords() string {
	switch k {
	case kindRepeat:
		return "the same tool call again and again"
	case kindReread:
		return "re-reading what no longer fits the window"
	case kindEmpty:
		return "empty replies"
	case kindThinking:
		return "thinking past its budget"
	case kindBroken:
		return "tool calls that cannot be read"
	case kindWords:
		return "the same words again and again"
	}
	return string(k)
}

// notice says, in one line, which correction the model was sent.
func (k loopKind) notice() string {
	switch k {
	case kindBroken:
		return "the model's tool call could not be read; asking it to correct the call"
	case kindEmpty:
		return "the model sent an empty reply; asking it again"
	case kindThinking:
		return "the model's thinking ran past its budget; asking it to answer"
	case kindWords:
		return repetitionNotice
	}
	return "the model is repeating itself; correcting it"
}

// stuck ends turn t when its guard stopped it while calls ran.
func (a *Agent) stuck(t *turn, send func(Event)) bool {
	if t.guard.stop == "" || a.escalateStuck(t, t.guard.stop, send) {
		return false
	}
	send(Notice{Level: Warn, Text: stuckText(t.guard.stop)})
	t.done.Reason = DoneStuck
	return true
}
