package agent

import (
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/tools"
)

// A turn runs from the user's message to Done. What it learns on the way
// (the loop guard's counts, the code retrieved for the prompt, the last
// request sent, why a reply was taken as truncated) lives in a turn value
// that runTurn makes and passes to what needs it; the Agent keeps only what
// outlives a turn: the history, the window and its calibration, the tool
// mode, plan mode.
//
// Each reply's calls are planned before they run: recovery (recover.go)
// reads them, answers ahead those that must not run (unreadable, repeated,
// not offered, cut at the output limit) and adds notes to the others; the
// loop guard screens them (loop.go); the runner (calls.go) runs the plan
// with the output cap the turn leaves.

// turn is the state of one turn. Functions that take a *turn accept nil,
// meaning between turns (Prefix, Plan, Compact, a resumed history): no
// code retrieved, no tools withheld, no request sent yet.
type turn struct {
	// done is the turn's last event, filled in as the turn goes.
	done  Done
	guard *loopGuard
	// ret is the code retrieved for the prompt (retrieve.go).
	ret retrieval
	// sent is the last request sent: re-read detection looks for results
	// in it, and an empty reply to it is a dropped call only if it
	// offered tools natively.
	sent models.Request
	// verdict says why the last reply was taken as truncated.
	verdict string
	// asText sends the next request in the text tool protocol, once
	// (retryAsText).
	asText bool
	// retries counts requests made again (a busy server, a crashed
	// runner, a call the server could not parse), so that the turn's
	// request count stays true.
	retries int
	// unparsed says why the server could not parse the last reply's call,
	// when even the text protocol did not get its text through; the reply
	// goes on as one without calls, and noCalls corrects the model.
	unparsed string
	// escalatedTo names the model the turn moved to ("" while on the
	// session's); mainSeat is the session's model, given back at the end,
	// and loadNoted is set once the escalation model's load time was
	// told (escalate.go).
	escalatedTo string
	mainSeat    seat
	loadNoted   bool
	// escalatedAfter is how many requests the turn had made when it
	// moved.
	escalatedAfter int
}

func newTurn() *turn { return &turn{done: Done{Reason: DoneStop}, guard: newGuard()} }

// restricted reports whether the next request offers only read-only tools.
func (t *turn) restricted() bool { return t != nil && t.guard.restrict }

// codeCost is tern's count of the code retrieved for the prompt.
func (t *turn) codeCost() int {
	if t == nil {
		return 0
	}
	return t.ret.cost
}

// textOnce reports whether the next request goes in the text tool
// protocol although the session does not.
func (t *turn) textOnce() bool { return t != nil && t.asText }

// plannedCall is one call of a reply as recovery planned it.
type plannedCall struct {
	call models.ToolCall
	// repair says how the call was recovered (models.RepairedCall.Repair).
	repair string
	// preset, when set, is the call's result without running it.
	preset *tools.Result
	// notes are put before the call's result when it runs.
	notes []string
}

// answerAhead makes res the call's result instead of running it.
func (p *plannedCall) answerAhead(res tools.Result) { p.preset = &res }

// callPlan is the calls of one reply, planned, for the runner to consume.
type callPlan struct {
	calls []plannedCall
	// limit caps each call's output, in bytes. The runner sets it once the
	// reply is in the history, from what the turn leaves of the room.
	limit int
}
