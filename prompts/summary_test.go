package prompts

import (
	"strings"
	"testing"
)

func TestRenderSummaryGolden(t *testing.T) {
	system, user, err := RenderSummary(Summary{
		Transcript: "USER: fix the failing test in parser_test.go\nASSISTANT: called read_file {\"path\":\"parser_test.go\"}",
		MaxWords:   180,
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary", "=== system\n"+system+"=== user\n"+user)
	for _, h := range SummaryHeadings() {
		if !strings.Contains(system, "\n"+h) {
			t.Errorf("the prompt does not ask for %q", h)
		}
	}
}
