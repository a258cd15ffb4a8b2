package headless

import (
	"testing"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/mcp"
)

var (
	write       = agent.Approval{Tool: "edit_file", Effect: tools.Writes}
	command     = agent.Approval{Tool: "run_command", Effect: tools.Executes}
	external    = agent.Approval{Tool: "mcp_fetch", Effect: tools.External}
	destructive = agent.Approval{Tool: "run_command", Effect: tools.Executes, Destructive: true, Why: "deletes files recursively"}
	serverStart = agent.Approval{Tool: mcp.ServerStartTool + "docs", Effect: tools.Executes, Once: true}
)

func TestApprover(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		policy Approver
		ap     agent.Approval
		allow  bool
		reason string
	}{
		{"no flag refuses a write", Approver{}, write, false,
			"tern ask asks no questions, so it refuses file changes unless run with --yes"},
		{"no flag refuses a command", Approver{}, command, false,
			"tern ask asks no questions, so it refuses commands unless run with --yes"},
		{"no flag refuses an external call", Approver{}, external, false,
			"tern ask asks no questions, so it refuses external tool calls unless run with --yes"},
		{"an effect without a name is a change", Approver{}, agent.Approval{Tool: "x"}, false,
			"tern ask asks no questions, so it refuses changes unless run with --yes"},
		{"--yes allows a write", Approver{Yes: true}, write, true, ""},
		{"--yes allows a command", Approver{Yes: true}, command, true, ""},
		{"--yes allows a server start", Approver{Yes: true}, serverStart, true, ""},
		{"--yes refuses a destructive command", Approver{Yes: true}, destructive, false,
			"it deletes files recursively; tern ask refuses destructive or unchecked commands unless run with --yolo"},
		{"--yolo allows a destructive command", Approver{Yes: true, Yolo: true}, destructive, true, ""},
		{"--yolo alone allows it too", Approver{Yolo: true}, destructive, true, ""},
		{"no flag: a server start says --yes", Approver{}, serverStart, false,
			"tern ask asks no questions, so it starts a server the repository configures only when run with --yes"},
		{"the command named", Approver{Command: "tern doctor"}, serverStart, false,
			"tern doctor asks no questions, so it starts a server the repository configures only when run with --yes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := tt.policy.Approve(t.Context(), tt.ap)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allow != tt.allow || d.Reason != tt.reason || d.Always {
				t.Errorf("Approve = %+v, want allow %v, reason %q", d, tt.allow, tt.reason)
			}
		})
	}
}

func TestResult(t *testing.T) {
	t.Parallel()
	stop := agent.Done{Reason: agent.DoneStop}
	refuse := func(policy Approver, aps ...agent.Approval) *Refusals {
		policy.Refused = &Refusals{}
		for _, ap := range aps {
			policy.Approve(t.Context(), ap)
		}
		return policy.Refused
	}
	for _, tt := range []struct {
		name    string
		done    agent.Done
		refused *Refusals
		want    Outcome
		msg     string
	}{
		{"answered", stop, &Refusals{}, Answered, ""},
		{"answered, nothing counted", stop, nil, Answered, ""},
		{"allowed calls are not counted", stop, refuse(Approver{Yes: true}, write, command), Answered, ""},
		{"a server start refused is no change refused", stop, refuse(Approver{}, serverStart), Answered, ""},
		{"one write refused", stop, refuse(Approver{}, write), Refused,
			"1 file change was refused and not made, whatever the answer says: run with --yes to allow file changes"},
		{"kinds in the order first refused", stop, refuse(Approver{}, command, write, command, external), Refused,
			"2 commands, 1 file change or 1 external tool call were refused and not made, whatever the answer says: run with --yes to allow commands, file changes or external tool calls"},
		{"only destructive commands", stop, refuse(Approver{Yes: true}, destructive, write), Refused,
			"1 destructive command was refused and not made, whatever the answer says: run with --yolo to allow destructive commands"},
		{"destructive and plain", stop, refuse(Approver{}, destructive, write), Refused,
			"1 destructive command or 1 file change were refused and not made, whatever the answer says: run with --yes to allow file changes, --yolo for destructive commands too"},
		{"the request limit goes before refusals", agent.Done{Reason: agent.DoneMaxTurns}, refuse(Approver{}, write), MaxTurns,
			"the turn ended at the request limit, not with an answer; continue with tern ask --resume S1"},
		{"stuck goes before refusals", agent.Done{Reason: agent.DoneStuck}, refuse(Approver{}, write), Stuck,
			"the turn ended stuck, not with an answer; continue with tern ask --resume S1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Result(tt.done, tt.refused, "S1")
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if got != tt.want || msg != tt.msg {
				t.Errorf("Result = %v, %q\nwant %v, %q", got, msg, tt.want, tt.msg)
			}
		})
	}
}

func TestRefusalsCountConcurrently(t *testing.T) {
	t.Parallel()
	r := &Refusals{}
	policy := Approver{Refused: r}
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 25 {
				policy.Approve(t.Context(), write)
			}
		}()
	}
	for range 8 {
		<-done
	}
	if n, what := r.summary(); n != 200 || what != "200 file changes were" {
		t.Errorf("summary = %d, %q, want 200 file changes", n, what)
	}
}
