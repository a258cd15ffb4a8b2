package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/agent"
)

func TestParseUnified(t *testing.T) {
	diff := "--- a/pkg/x.go\n+++ b/pkg/x.go\n@@ -3,3 +3,4 @@\n ctx\n-old\n+new\n+more\n tail\n@@ -20,1 +21,1 @@\n-a\n+b\n\\ No newline at end of file\n"
	path, hunks := parseUnified(diff)
	if path != "pkg/x.go" || len(hunks) != 2 {
		t.Fatalf("path %q, %d hunks", path, len(hunks))
	}
	if hunks[0].old != "ctx\nold\ntail\n" || hunks[0].new != "ctx\nnew\nmore\ntail\n" || hunks[0].newStart != 3 || hunks[1].newStart != 21 {
		t.Errorf("hunks = %+v", hunks)
	}
	created := diffContent("/ws", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello\n")
	if len(created) != 1 || created[0].Diff.Path != "/ws/new.txt" || created[0].Diff.OldText != nil || created[0].Diff.NewText != "hello\n" {
		t.Errorf("a new file's diff = %+v", created[0].Diff)
	}
	if diffContent("/ws", "$ go test ./...\n(in /ws, timeout 30s)") != nil {
		t.Error("a command line was read as a diff")
	}
}

func TestPlanEntries(t *testing.T) {
	got := planEntries("Here is the plan:\n1. Read config.go\n2) Add the flag\n- run go test\nDone.")
	var steps []string
	for _, e := range got {
		steps = append(steps, e.Content)
	}
	if strings.Join(steps, "|") != "Read config.go|Add the flag|run go test" {
		t.Errorf("steps = %q", steps)
	}
	if one := planEntries("Just do it."); len(one) != 1 || one[0].Content != "Just do it." || one[0].Status != sdk.PlanEntryStatusPending {
		t.Errorf("a plan without steps = %+v", one)
	}
}

func TestMalformed(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, ""},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, ""},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, ""},
		{`{oops`, `"code":-32700`},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, `"code":-32600`},
		{`"hello"`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":4}`, `"id":4`},
		{`{"jsonrpc":"2.0","id":5,"method":7}`, `"id":5`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, `"id":null`},
	} {
		got := string(malformed([]byte(tt.line)))
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("malformed(%s) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestStopReason(t *testing.T) {
	for _, tt := range []struct {
		done agent.Done
		cut  bool
		want sdk.StopReason
	}{
		{agent.Done{Reason: agent.DoneStop}, false, sdk.StopReasonEndTurn},
		{agent.Done{Reason: agent.DoneStop}, true, sdk.StopReasonMaxTokens},
		{agent.Done{Reason: agent.DoneMaxTurns}, false, sdk.StopReasonMaxTurnRequests},
		{agent.Done{Reason: agent.DoneCanceled}, false, sdk.StopReasonCancelled},
		{agent.Done{Reason: agent.DoneStuck}, false, sdk.StopReasonEndTurn},
	} {
		v := &turnView{done: tt.done, cut: tt.cut}
		if got := v.stopReason(); got != tt.want {
			t.Errorf("%s (cut %v) = %s, want %s", tt.done.Reason, tt.cut, got, tt.want)
		}
	}
}

func TestSlashCommand(t *testing.T) {
	for _, tt := range []struct{ in, name, arg string }{
		{"/compact", "compact", ""},
		{"  /diff  now ", "diff", "now"},
		{"//etc/hosts is odd", "", ""},
		{"/usr/bin is slow", "usr/bin", "is slow"},
		{"fix /tmp handling", "", ""},
	} {
		name, arg, _ := slashCommand(tt.in)
		if name != tt.name || arg != tt.arg {
			t.Errorf("slashCommand(%q) = %q, %q", tt.in, name, arg)
		}
	}
}

func TestOpenedSession(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":2,"result":{"modes":{},"sessionId":"s1"}}`, "s1"},
		{`{"jsonrpc":"2.0","id":"a","result":{"sessionId":"s2"}}`, "s2"},
		// An update, a request and a session/list answer name sessions
		// they do not give the client.
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update","result":1}}}`, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s1"}}`, ""},
		{`{"jsonrpc":"2.0","id":4,"result":{"sessions":[{"sessionId":"s1"}]}}`, ""},
		{`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"x"}}`, ""},
		{`not json "result"`, ""},
	} {
		if got := openedSession([]byte(tt.line)); got != tt.want {
			t.Errorf("openedSession(%s) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestMention(t *testing.T) {
	l := &live{dir: "/ws"}
	for uri, want := range map[string]string{
		"file:///ws/main.go":                 "main.go",
		"file:///ws/main.go#L10:20":          "main.go:10-20",
		"file:///ws/main.go#L10-20":          "main.go:10-20",
		"file:///ws/main.go#L10-L20":         "main.go:10-20",
		"file:///ws/main.go#L7":              "main.go:7",
		"file:///ws/main.go?symbol=run#L3:9": "main.go:3-9",
		"file:///ws/my%20notes.md#L2:2":      `"my notes.md":2`,
		"file:///ws/main.go#section":         "main.go",
		"file:///elsewhere/x.go#L1:2":        "/elsewhere/x.go:1-2",
		"https://example.com/page#L1":        "https://example.com/page#L1",
	} {
		if got := l.mention(uri); got != want {
			t.Errorf("mention(%s) = %s, want %s", uri, got, want)
		}
	}
}

func TestCallTitle(t *testing.T) {
	for _, tt := range []struct{ name, subject, want string }{
		{"read_file", "main.go:1-40", "read_file main.go:1-40"},
		{"list_dir", "list_dir . (5 entries)", "list_dir . (5 entries)"}, // a summary that names its tool
		{"grep", `grep "demo" 2 matches`, `grep "demo" 2 matches`},
		{"git_status", "git status: clean", "git_status git status: clean"},
		{"run_command", "", "run_command"},
	} {
		if got := callTitle(tt.name, tt.subject); got != tt.want {
			t.Errorf("callTitle(%q, %q) = %q, want %q", tt.name, tt.subject, got, tt.want)
		}
	}
}
