// Package headless is `tern ask`, the headless front end, in the cli/cli
// manner: Options and NewCmd (its arguments and flags, tested without
// running anything) and Run, which drives one turn of a Session that
// package main opens. It renders the agent's events as text (the answer
// on stdout, the rest briefly on stderr) or as NDJSON, answers the
// agent's approvals by the --yes / --yolo policy (Approver), and says how
// a turn that ran to its end went (Outcome, OutcomeError, CanceledError),
// so that package main can map it to an exit code.
//
// It imports agent (the events and the approval it answers), tools (the
// effect of a call) and words, nothing else of tern.
package headless

import "github.com/ternhq/tern/agent"

// Writer renders agent events. Write takes each event of a turn in order;
// Flush reports the first error writing met.
type Writer interface {
	Write(agent.Event)
	Flush() error
}

// Tap passes events on to w and keeps the turn's Done in *done.
func Tap(w Writer, done *agent.Done) Writer { return doneTap{w, done} }

// doneTap passes events on and keeps the turn's Done.
type doneTap struct {
	Writer
	done *agent.Done
}

func (d doneTap) Write(e agent.Event) {
	if v, ok := e.(agent.Done); ok {
		*d.done = v
	}
	d.Writer.Write(e)
}
