package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"

	"github.com/ternhq/tern/models/ollamatest"
)

// An editor that never answers a permission request keeps the turn
// waiting; session/cancel ends it (cancelled) and leaves a session that
// takes the next prompt; and a question still open never holds tern's
// exit when the editor goes.
func TestACPUnansweredPermission(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "1")
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	write := ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hello\n"}`}}}
	f.srv.Script(write, ollamatest.Reply{Content: "Done after all."})

	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("write notes.txt")}})
		done <- result{resp, err}
	}()
	var asked sdk.RequestPermissionRequest
	select {
	case asked = <-r.client.asked:
	case res := <-done:
		t.Fatalf("the turn ended before asking: %+v\nstderr:\n%s", res, r.stderr.String())
	}
	if len(asked.ToolCall.Content) == 0 || asked.ToolCall.Content[0].Diff == nil || asked.ToolCall.Content[0].Diff.NewText != "hello\n" {
		t.Errorf("the question does not show the new file as a diff: %+v", asked.ToolCall)
	}
	select {
	case res := <-done:
		t.Fatalf("the turn ended while the question was open: %+v", res)
	default:
	}
	if err := r.conn.Cancel(ctx, sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || res.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled turn: %+v, %v", res.resp, res.err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); err == nil {
		t.Error("the unanswered write ran")
	}

	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("and now?")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after the cancel: %+v, %v", resp, err)
	}

	// A question open when the editor goes does not hold tern.
	f.srv.Script(write)
	go r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("write it again")}})
	<-r.client.asked
	r.in.Close()
	select {
	case code := <-r.exited:
		r.exited <- code // for the cleanup
		if code != 0 {
			t.Errorf("tern acp exited %d; stderr:\n%s", code, r.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tern acp did not exit with a question open after the editor closed its stdin")
	}
}

// ask_user's questions reach the editor as permission prompts whose
// options are the answers; a plan kept for later is carried out with
// /accept, sent as a plan update, and the accepted plan's tier comes as a
// mode update; how the session opened (the model tern chose) is said.
func TestACPQuestionsAndPlans(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		want := map[string]string{"Which greeting?": "hello", "Accept the plan and carry it out?": "Keep planning (your next prompt comments on it)"}[*p.ToolCall.Title]
		for _, o := range p.Options {
			if o.Name == want {
				return sdk.NewRequestPermissionOutcomeSelected(o.OptionId)
			}
		}
		return sdk.NewRequestPermissionOutcomeCancelled()
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Which greeting?","options":["hi","hello"]}]}`}}},
		ollamatest.Reply{Content: "Going with hello."},
		ollamatest.Reply{Content: "1. Change the greeting\n2. Run the tests"},
		ollamatest.Reply{Content: "Done as planned."},
	)
	prompt := func(text string) sdk.StopReason {
		t.Helper()
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			t.Fatalf("prompt %q: %v\nstderr:\n%s", text, err, r.stderr.String())
		}
		return resp.StopReason
	}
	prompt("greet the user")
	<-r.client.asked
	if got := f.srv.Requests()[1].Messages; !strings.Contains(got[len(got)-1].Content, "hello") {
		t.Errorf("the model did not get the answer: %+v", got[len(got)-1])
	}
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	prompt("plan the change")
	<-r.client.asked
	if stop := prompt("/accept and be quick"); stop != sdk.StopReasonEndTurn {
		t.Errorf("/accept stopped with %s", stop)
	}
	last := f.srv.Requests()[3].Messages
	if !strings.Contains(last[len(last)-1].Content, "and be quick") {
		t.Errorf("the accepting turn lacks the note: %+v", last[len(last)-1])
	}
	raw := r.raw.String()
	for _, want := range []string{`"sessionUpdate":"plan"`, `"content":"Change the greeting"`, `"currentModeId":"edit"`, `"text":" planned."`,
		"using qwen3:8b (best installed model", `"name":"accept"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("tern never wrote %s:\n%s", want, raw)
		}
	}
}

// A call the user is asked about goes back to in_progress once allowed:
// the permission request shows it pending, and a client that takes the
// request's status for the call's (the protocol's pending is "awaiting
// approval") must not show it waiting while it runs.
func TestACPToolCallStatusAfterApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "1")
	id := r.newSession(t, f.dir)
	r.allowFirst()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hello\n"}`}}},
		ollamatest.Reply{Content: "Written."},
	)
	r.prompt(t, id, sdk.TextBlock("write notes.txt"))
	<-r.client.asked
	var statuses []string
	for line := range strings.SplitSeq(r.raw.String(), "\n") {
		var msg struct {
			Method string
			Params struct {
				Update   struct{ ToolCallID, Status string }
				ToolCall struct{ ToolCallID, Status string }
			}
		}
		json.Unmarshal([]byte(line), &msg)
		call := msg.Params.Update
		if msg.Method == "session/request_permission" {
			call = msg.Params.ToolCall
		}
		if call.ToolCallID != "" && call.Status != "" {
			statuses = append(statuses, msg.Method+" "+call.Status)
		}
	}
	want := []string{"session/update in_progress", "session/request_permission pending", "session/update in_progress", "session/update completed"}
	if strings.Join(statuses, ", ") != strings.Join(want, ", ") {
		t.Errorf("the call's statuses: %q, want %q", statuses, want)
	}
}

// The editor offers what the TUI's p does: allow the commands that start
// as this one does for the rest of the session, and not the whole tool.
func TestACPAllowCommandPrefix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "2")
	id := r.newSession(t, f.dir)
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		for _, o := range p.Options {
			if strings.Contains(o.Name, "starting with `ls`") && o.Kind == sdk.PermissionOptionKindAllowAlways {
				return sdk.NewRequestPermissionOutcomeSelected(o.OptionId)
			}
		}
		return sdk.NewRequestPermissionOutcomeCancelled()
	}
	call := func(command string) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: jsonOf(map[string]string{"command": command})}}}
	}
	f.srv.Script(call("ls -la"), call("ls ."), call("cat README.md"), ollamatest.Reply{Content: "Looked."})
	r.prompt(t, id, sdk.TextBlock("look at the history"))
	var asked []string
	for len(r.client.asked) > 0 {
		p := <-r.client.asked
		asked = append(asked, jsonOf(p.ToolCall.RawInput))
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "ls -la") || !strings.Contains(asked[1], "cat README.md") {
		t.Errorf("asked about %q; want ls -la and cat, not the second ls", asked)
	}
}

// A question that is no model's call (ask_user's, a plan to accept) is a
// tool call of its own: announced before the permission request that
// names it, and completed once answered, so that no client is left with
// a request about a call it never heard of, or a card waiting forever.
func TestACPQuestionsAreToolCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t)
	id := r.newSession(t, f.dir)
	ctx := t.Context()
	r.allowFirst()
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Which greeting?","options":["hi","hello"]}]}`}}},
		ollamatest.Reply{Content: "Going with hi."},
		ollamatest.Reply{Content: "1. Change the greeting"},
		ollamatest.Reply{Content: "Done."},
	)
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("greet")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("plan it")}}); err != nil {
		t.Fatal(err)
	}
	for len(r.client.asked) > 0 {
		asked := <-r.client.asked
		call := `"toolCallId":"` + string(asked.ToolCall.ToolCallId) + `"`
		var seen []string
		for line := range strings.SplitSeq(r.raw.String(), "\n") {
			switch {
			case !strings.Contains(line, call):
			case strings.Contains(line, `"session/request_permission"`):
				seen = append(seen, "asked")
			case strings.Contains(line, `"sessionUpdate":"tool_call"`):
				seen = append(seen, "announced")
			case strings.Contains(line, `"status":"completed"`):
				seen = append(seen, "completed")
			}
		}
		if strings.Join(seen, " ") != "announced asked completed" {
			t.Errorf("%q (%s): %q, want announced, asked, completed", *asked.ToolCall.Title, asked.ToolCall.ToolCallId, seen)
		}
	}
}

// Each /undo question is a tool call of its own: a second one in the
// session does not reuse, and so overwrite, the first one's call.
func TestACPUndoQuestionsAreDistinct(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cmdtest.GitCommit(t, f.dir) // for the checkpoint before the first change
	r := f.startACP(t, "--tier", "1")
	id := r.newSession(t, f.dir)
	r.client.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		if *p.ToolCall.Title == "Allow undo?" {
			return sdk.NewRequestPermissionOutcomeSelected("reject") // so that the next /undo asks again
		}
		return sdk.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)
	}
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hello\n"}`}}},
		ollamatest.Reply{Content: "Written."},
	)
	r.prompt(t, id, sdk.TextBlock("write notes.txt"))
	if err := os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err) // the editor saves the file it was given
	}
	r.prompt(t, id, sdk.TextBlock("/undo"))
	r.prompt(t, id, sdk.TextBlock("/undo"))
	var calls []string
	for line := range strings.SplitSeq(r.raw.String(), "\n") {
		var msg struct {
			Params struct {
				Update struct{ SessionUpdate, ToolCallID, Title string }
			}
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Params.Update.SessionUpdate == "tool_call" && strings.HasPrefix(msg.Params.Update.Title, "Allow undo") {
			calls = append(calls, msg.Params.Update.ToolCallID)
		}
	}
	if len(calls) != 2 || calls[0] == calls[1] {
		t.Errorf("the /undo questions' tool calls: %q, want two distinct:\n%s", calls, r.raw.String())
	}
}

// A destructive command is never offered "always" in the editor, neither
// for the tool nor for commands starting as it does: the request offers
// allow once and reject, and says what the command would destroy.
func TestACPDestructiveIsNeverAlways(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.startACP(t, "--tier", "2")
	id := r.newSession(t, f.dir)
	r.client.answer = func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected("reject")
	}
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "run_command", Args: `{"command":"rm -rf docs"}`}}},
		ollamatest.Reply{Content: "Left it."})
	r.prompt(t, id, sdk.TextBlock("clean up"))
	p := <-r.client.asked
	var kinds []string
	for _, o := range p.Options {
		kinds = append(kinds, string(o.Kind))
	}
	if strings.Join(kinds, " ") != "allow_once reject_once" {
		t.Errorf("options %s; want allow once and reject only", jsonOf(p.Options))
	}
	if p.ToolCall.Title == nil || !strings.Contains(*p.ToolCall.Title, "? It ") {
		t.Errorf("title %v does not say what it would destroy", p.ToolCall.Title)
	}
}
