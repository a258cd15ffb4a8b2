package prompts

import (
	"strings"
	"testing"
)

func TestRenderModesGolden(t *testing.T) {
	e := Explore{Task: "how are config files loaded", Files: []string{"cmd/tern/config.go", "README.md"}, Words: 300}
	var all []string
	for _, f := range []func(Explore) (string, error){RenderExplore, RenderExploreFinal} {
		s, err := f(e)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	if s, err := RenderExplore(Explore{Task: "x", Words: 10}); err != nil || strings.Contains(s, "Start with") {
		t.Errorf("no files still says where to start: %q %v", s, err)
	}
	p := Plan{Prompt: "add a --json flag", Plan: "1. Edit cmd/ask.go"}
	for _, kind := range []string{PlanAsk, PlanRevise, PlanGoal, PlanGo, PlanRefused} {
		s, err := RenderPlan(kind, p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	if _, err := RenderPlan("nope", p); err == nil {
		t.Error("an unknown kind rendered")
	}
	golden(t, "modes", strings.Join(all, "----\n"))
}
