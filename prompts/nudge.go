package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed nudge/*.tmpl
var nudgeFS embed.FS

var nudges = template.Must(template.New("").Funcs(template.FuncMap{
	"join": strings.Join,
}).ParseFS(nudgeFS, "nudge/*.tmpl"))

// Kinds of nudge: short corrective messages for a model that went astray.
const (
	// NudgeBrokenCall: call text that could not be read. Problem says
	// what was wrong; Example is one valid call.
	NudgeBrokenCall = "broken_call"
	// NudgeEmpty: a reply with neither text nor a call. Example is one
	// valid call.
	NudgeEmpty = "empty_reply"
	// NudgeRepeat: the same call (Tool, Count times) in a loop; the call's
	// result.
	NudgeRepeat = "repeated_call"
	// NudgeReread: the same read again after its results were dropped
	// from the window.
	NudgeReread = "reread"
	// NudgeThinking: thinking that ran past its budget with no answer.
	NudgeThinking = "runaway_thinking"
	// NudgeOneTool: the result of a call not run because the model sent
	// several in one reply.
	NudgeOneTool = "one_tool"
	// NudgeRepetition: a reply the server cut off because the model kept
	// writing the same word.
	NudgeRepetition = "repetition"
	// NudgeIntent: a reply that announced an action but called no tool.
	// Example is the call that does it.
	NudgeIntent = "intent"
	// NudgeNotProse: a reply that was not plain prose (markup, a command
	// line, JSON, argument pairs) and from which no call could be read.
	// Problem says what it held; Example is one valid call.
	NudgeNotProse = "not_prose"
	// NudgeRefusal: a reply that said it cannot do what its tools do.
	// Problem lists the tools on offer; Example is one valid call.
	NudgeRefusal = "refusal"
)

// Nudge is a corrective message to render.
type Nudge struct {
	Kind    string
	Problem string
	Tool    string
	Count   int
	Example string
	// Tools, when set, says the next request offers only these tools.
	Tools []string
	// Reminder appends the small-model reminder (one tool per reply, read
	// before edit).
	Reminder bool
}

// RenderNudge returns the message for n: one short paragraph, never a
// stack trace or a schema.
func RenderNudge(n Nudge) (string, error) {
	var b bytes.Buffer
	if err := nudges.ExecuteTemplate(&b, n.Kind, n); err != nil {
		return "", fmt.Errorf("render nudge %s: %w", n.Kind, err)
	}
	for _, extra := range []struct {
		on   bool
		name string
	}{{len(n.Tools) > 0, "restricted"}, {n.Reminder, "reminder"}} {
		if extra.on {
			b.WriteByte('\n')
			if err := nudges.ExecuteTemplate(&b, extra.name, n); err != nil {
				return "", fmt.Errorf("render nudge %s: %w", extra.name, err)
			}
		}
	}
	return b.String(), nil
}
