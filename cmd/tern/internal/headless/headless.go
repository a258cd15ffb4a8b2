// Package headless is `tern ask`'s front end: it renders the agent's
// events as text (the answer on stdout, the rest briefly on stderr) or as
// NDJSON, answers the agent's approvals by the --yes / --yolo policy, and
// says how a turn that ran to its end went (Outcome), so that package
// main can map it to an exit code.
//
// It imports agent (the events and the approval it answers) and tools
// (the effect of a call), nothing else of tern.
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
