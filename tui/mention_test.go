package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestMentionsWithAccentsAndSpaces: @ completes a name with non-ASCII
// letters as it is, and one with a space in its quoted form; both are
// attached when the prompt is sent, with a line range's lines, and the
// model reads them.
func TestMentionsWithAccentsAndSpaces(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "docs/café.md", "main.go", "notes/my plan.md"}
	h := newHarness(t, withDeps(func(d *Deps) {
		d.Files = func(context.Context) ([]string, error) { return files, nil }
	}))
	for name, body := range map[string]string{"docs/café.md": "Café notes.\n", "notes/my plan.md": "Step one.\n"} {
		p := filepath.Join(h.root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.online()
	h.typeText("compare @docs/ca")
	h.waitFor("@docs/café.md   (Tab completes)")
	h.key(tcell.KeyTab)
	h.waitUntil("the name completed", func() bool { return h.app.input.GetText() == "compare @docs/café.md " })
	h.typeText("with @notes/my")
	h.waitFor(`@"notes/my plan.md"   (Tab completes)`)
	h.key(tcell.KeyTab)
	h.waitUntil("the quoted name", func() bool { return h.app.input.GetText() == `compare @docs/café.md with @"notes/my plan.md" ` })

	h.typeText("at @main.go:3") // a line range, as /search puts in
	h.srv.Script(ollamatest.Reply{Content: "Both read."})
	h.key(tcell.KeyEnter)
	h.waitFor("✓ read_file docs/café.md", "✓ read_file notes/my plan.md", "✓ read_file main.go:3", "Both read.")
	var sent []string
	for _, m := range h.srv.Requests()[0].Messages {
		sent = append(sent, m.Content)
	}
	all := strings.Join(sent, "\n")
	if !strings.Contains(all, "Café notes.") || !strings.Contains(all, "Step one.") {
		t.Errorf("the model did not get both files:\n%s", all)
	}
}
