package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRunCommandReportsItsOutputAsItRuns: a running command's last lines
// reach Progress while it runs, not only in its result.
func TestRunCommandReportsItsOutputAsItRuns(t *testing.T) {
	ws := newFixture(t)
	tool := newRunCommand(t, ws, CommandPolicy{})
	reports := make(chan Progress, 100)
	done := make(chan Result, 1)
	go func() {
		// It waits for the file go, which the test makes once it has seen
		// the first line reported.
		args := `{"command":"echo one; echo two; echo three; while [ ! -f go ]; do sleep 0.02; done; echo four"}`
		done <- tool.Run(t.Context(), Input{Args: json.RawMessage(args), Progress: func(p Progress) { reports <- p }})
	}()
	deadline := time.After(30 * time.Second)
	for seen := false; !seen; {
		select {
		case p := <-reports:
			seen = p.Text == "one\ntwo\nthree"
			if !seen && !strings.HasSuffix("one\ntwo\nthree", p.Text) {
				t.Fatalf("a report of %q", p.Text)
			}
		case r := <-done:
			t.Fatalf("the command ended before its output was reported: %+v", r)
		case <-deadline:
			t.Fatal("no report of the output while the command ran")
		}
	}
	writeFiles(t, ws.Root(), map[string]string{"go": ""})
	if r := <-done; r.IsError || !strings.Contains(r.Output, "four") {
		t.Fatalf("result %+v", r)
	}
}

func TestLastOutputLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\nb\nc\nd\n", "b\nc\nd"},
		{"a\n\n  \nb", "a\nb"},
		{"building 10%\rbuilding 50%\rbuilding 90%\n", "building 90%"},
		{"crlf\r\n", "crlf"},
		{"", ""},
	} {
		if got := lastOutputLines([]byte(tc.in), 3); got != tc.want {
			t.Errorf("lastOutputLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
