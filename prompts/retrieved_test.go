package prompts

import (
	"strings"
	"testing"
)

func TestRenderRetrievedGolden(t *testing.T) {
	snippets := "calc/total.go:3-9 (func Total)\n```go\nfunc Total(xs []int) int {\n\treturn 0\n}\n```\n\n"
	got, err := RenderRetrieved(snippets)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "retrieved", got)
	if !strings.HasSuffix(got, "```\n") {
		t.Errorf("the snippets do not end the message:\n%s", got)
	}
}
