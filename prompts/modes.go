package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed modes/modes.tmpl
var modesFS embed.FS

var modeTemplates = template.Must(template.New("modes").Funcs(template.FuncMap{"join": strings.Join}).
	ParseFS(modesFS, "modes/modes.tmpl"))

// Explore is what the explore subagent's prompts are rendered from.
type Explore struct {
	Task string
	// Files are where the caller suggested starting.
	Files []string
	// Words caps the report's length.
	Words int
}

// RenderExplore returns the first message of an explore subagent: its
// task and the shape of the report it must end with.
func RenderExplore(e Explore) (string, error) { return renderMode("explore", e) }

// RenderExploreFinal returns the message that asks a subagent out of turns
// for its report.
func RenderExploreFinal(e Explore) (string, error) { return renderMode("explore_final", e) }

// Plan is what the plan mode messages are rendered from.
type Plan struct {
	// Prompt is the user's words: the request, or the comment sent with a
	// plan sent back, or what the user adds when accepting.
	Prompt string
	// Plan is the plan accepted.
	Plan string
}

// Plan mode messages.
const (
	PlanAsk    = "plan"        // a request in plan mode
	PlanRevise = "plan_revise" // a plan sent back with a comment
	PlanGoal   = "plan_goal"   // the accepted plan, pinned in the window
	PlanGo     = "plan_go"     // the request to carry the accepted plan out
	// PlanRefused answers a call plan mode does not allow; Prompt is
	// the tool's name.
	PlanRefused = "plan_refused"
)

// RenderPlan returns the plan mode message of the given kind.
func RenderPlan(kind string, p Plan) (string, error) {
	switch kind {
	case PlanAsk, PlanRevise, PlanGoal, PlanGo, PlanRefused:
		return renderMode(kind, p)
	}
	return "", fmt.Errorf("render plan prompt: no kind %q", kind)
}

func renderMode(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := modeTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s prompt: %w", name, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}
