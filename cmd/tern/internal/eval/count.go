package eval

import (
	"fmt"
	"io"
)

// Call is one tool call the model tried, as the session recorded it.
type Call struct {
	// Invalid marks a call that could not run as written: unreadable call
	// text, an unknown tool, bad arguments.
	Invalid bool
	// Unreadable marks call text that could not be read as a call at all:
	// no call ran.
	Unreadable bool
	// Repair is how the call was recovered ("tagged", "bare+alias", …);
	// "" or "native" for a native call.
	Repair string
}

// Count adds calls to the result: every call is an attempt, valid or
// invalid; each that is not unreadable is a tool call, counted by its
// repair when it was not native.
func (r *Result) Count(calls []Call) {
	for _, c := range calls {
		r.Attempts++
		if c.Invalid {
			r.Invalid++
		} else {
			r.Valid++
		}
		if c.Unreadable {
			continue // not a call that ran
		}
		r.ToolCalls++
		if c.Repair != "" && c.Repair != "native" {
			if r.Repaired == nil {
				r.Repaired = map[string]int{}
			}
			r.Repaired[c.Repair]++
		}
	}
}

// CheckModes reports the first of list that is not a tool mode tern eval
// --modes compares: native, text or constrained.
func CheckModes(list []string) error {
	for _, m := range list {
		switch m {
		case "native", "text", "constrained":
		default:
			return fmt.Errorf("--modes: %q is not a tool mode; use native, text or constrained", m)
		}
	}
	return nil
}

// WriteProgress writes the line a task's result makes while the suite
// runs: its name, mode and status.
func WriteProgress(w io.Writer, res Result) {
	fmt.Fprintf(w, "%-20s %-11s %s\n", res.Task, res.Mode, res.Status)
}
