// Package tools holds the tools a model may call: each one is a Go file and
// an embedded Markdown description the model reads. The package also owns
// the workspace sandbox every file tool goes through and the policy for
// capping and spilling large outputs.
//
// A tool failure is a Result for the model (IsError set), never a Go error:
// the model can read it and try again. tools imports models and index/ignore;
// it must not import agent, session, tui or cmd.
package tools

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ternhq/tern/models"
)

// Effect classifies what running a tool can change. The agent uses it to
// decide what may run in parallel and what needs the user's approval.
type Effect int

const (
	// ReadOnly tools only read the workspace. Calls in one reply run in
	// parallel and never ask for approval.
	ReadOnly Effect = iota
	// Writes tools change files in the workspace.
	Writes
	// Executes tools run programs.
	Executes
	// External tools reach outside the machine (network, MCP servers).
	External
)

func (e Effect) String() string {
	switch e {
	case ReadOnly:
		return "read-only"
	case Writes:
		return "writes"
	case Executes:
		return "executes"
	case External:
		return "external"
	}
	return "unknown"
}

// Doing says what a call with this effect does, for someone asked to
// approve it: "writes files"; "" for read-only calls, which never ask.
func (e Effect) Doing() string {
	switch e {
	case Writes:
		return "writes files"
	case Executes:
		return "runs a command"
	case External:
		return "reaches outside this machine"
	}
	return ""
}

// Tool is one thing the model can do.
type Tool interface {
	Spec() models.ToolSpec
	Effect() Effect
	Run(ctx context.Context, in Input) Result
}

// Input is one call of a tool.
type Input struct {
	// Args is the JSON object of arguments, already repaired and checked
	// against the tool's schema by the caller.
	Args json.RawMessage
	// Limit is the most bytes of output the result may carry; beyond it the
	// output is cut (head and tail kept) and the whole spilled to a file.
	// Zero means DefaultLimit.
	Limit int
	// CallID identifies the call in the session, for a tool that keeps
	// records of its own (explore keeps its subagent's messages under it).
	CallID string
	// Progress, when set, takes news of a long call while it runs.
	Progress func(Progress)
}

// Progress is news of a call still running, for people: a subagent's
// latest step and what it has cost so far.
type Progress struct {
	Text string
	// Tokens counts the model tokens (prompt and generated) spent so far.
	Tokens int
}

// DefaultLimit is the output cap when the caller gives none: about 2k tokens.
const DefaultLimit = 8 << 10

// Result is what a call produced.
type Result struct {
	// Output is what the model reads.
	Output string
	// IsError marks a failed call; Output then says what went wrong and, where
	// it can, how to do it right.
	IsError bool
	// Summary is one line for people, such as "agent/loop.go:1-80 (80 lines)".
	Summary string
	// Diff is a unified diff of what a write changed, for display.
	Diff string
	// Detail is more for people, shown when the call is opened and never
	// sent to the model: the steps of explore's subagent.
	Detail string
	// Diagnostics are the problems an edit introduced (Output already
	// tells the model of them), for people: a count on the tool's line,
	// and tern ask --json.
	Diagnostics []Diagnostic
}

// Errorf returns a failed Result whose output is the formatted message.
func Errorf(format string, args ...any) Result {
	return Result{Output: sprintf(format, args...), IsError: true, Summary: "error"}
}

// Set is an ordered collection of tools. Order matters: tools are sent to the
// model in this order, and a stable order keeps the prompt prefix stable.
type Set struct {
	list []Tool
}

// NewSet returns a Set of tools in the given order. A later tool with the
// same name as an earlier one is dropped.
func NewSet(ts ...Tool) *Set {
	s := &Set{}
	for _, t := range ts {
		s.Add(t)
	}
	return s
}

// Add appends t unless a tool of that name is already present; it reports
// whether t was added.
func (s *Set) Add(t Tool) bool {
	if _, ok := s.Get(t.Spec().Name); ok {
		return false
	}
	s.list = append(s.list, t)
	return true
}

// Get returns the tool named name.
func (s *Set) Get(name string) (Tool, bool) {
	i := slices.IndexFunc(s.list, func(t Tool) bool { return t.Spec().Name == name })
	if i < 0 {
		return nil, false
	}
	return s.list[i], true
}

// All returns the tools in order.
func (s *Set) All() []Tool { return slices.Clone(s.list) }

// Names returns the tool names in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.list))
	for i, t := range s.list {
		names[i] = t.Spec().Name
	}
	return names
}

// Specs returns the tool specifications in order.
func (s *Set) Specs() []models.ToolSpec {
	specs := make([]models.ToolSpec, len(s.list))
	for i, t := range s.list {
		specs[i] = t.Spec()
	}
	return specs
}
