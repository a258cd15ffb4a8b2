package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// TestApprovalDialogCoversTheConversation runs the built binary in tmux,
// fills the conversation with Z, and asks to approve an edit: at 80x24
// and again at 160x45 the dialog's frame must hold only the dialog (the
// diff the user decides on), never a Z from underneath. The screens are
// in the test log.
func TestApprovalDialogCoversTheConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	zs := strings.Repeat(strings.Repeat("Z", 160)+"\n", 40)
	f.srv.Script(
		ollamatest.Reply{Content: "```\n" + zs + "```"},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file",
			Args: `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"hello\")"}`}}},
		ollamatest.Reply{Content: "Done."},
	)
	tm := startTmux(t, f, 80, 24, "--tier", "1")
	tm.waitPane("qwen3:8b │ tier 1")
	tm.keys("fill the screen", "Enter")
	tm.waitPane("ZZZZZZZZZZZZZZZZZZZZ")
	tm.waitIdle()
	tm.keys("change the greeting", "Enter")
	screen := tm.waitSettled("Allow edit_file?", `+func main() { println("hello") }`)
	checkDialogClear(t, "80x24", screen)

	tm.resize(160, 45)
	// Wait for tern to redraw at the new size: the footer on the last row.
	for deadline := time.Now().Add(30 * time.Second); ; {
		screen = tm.pane()
		rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		if len(rows) == 45 && strings.Contains(rows[44], "Ctrl+Q quit") && strings.Contains(screen, "Allow edit_file?") {
			screen = tm.waitSettled("Allow edit_file?", "Ctrl+Q quit")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tern did not redraw at 160x45:\n%s", screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkDialogClear(t, "160x45", screen)

	tm.answer("y")
	tm.waitPane("Done.")
	if data, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); !strings.Contains(string(data), "hello") {
		t.Errorf("the approved edit was not made: %q", data)
	}
}

// checkDialogClear finds the dialog's double-line frame in a captured
// screen and fails when a Z shows inside it.
func checkDialogClear(t *testing.T, size, screen string) {
	t.Helper()
	t.Logf("approval dialog at %s:\n%s", size, screen)
	rows := strings.Split(screen, "\n")
	top, left := -1, -1
	for y, r := range rows {
		if x := strings.IndexRune(r, '╔'); x >= 0 {
			top, left = y, len([]rune(r[:x]))
			break
		}
	}
	if top < 0 {
		t.Fatalf("%s: no dialog frame:\n%s", size, screen)
	}
	right := -1
	for x, r := range []rune(rows[top]) {
		if x > left && r == '╗' {
			right = x
			break
		}
	}
	if right < 0 {
		t.Fatalf("%s: the dialog frame has no right corner:\n%s", size, screen)
	}
	for y := top; y < len(rows); y++ {
		r := []rune(rows[y])
		if left >= len(r) {
			t.Fatalf("%s: row %d ends before the dialog's left edge:\n%s", size, y, screen)
		}
		inside := string(r[left:min(right+1, len(r))])
		if strings.ContainsRune(inside, 'Z') {
			t.Fatalf("%s: the conversation shows through the dialog on row %d: %q", size, y, inside)
		}
		if r[left] == '╚' {
			return
		}
	}
	t.Fatalf("%s: the dialog frame does not close:\n%s", size, screen)
}
