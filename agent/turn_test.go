package agent

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// reply is an assistant message calling the tools named, each with args.
func reply(calls ...[2]string) models.Message {
	m := models.Message{Role: models.RoleAssistant}
	for _, c := range calls {
		m.ToolCalls = append(m.ToolCalls, models.ToolCall{Name: c[0], Arguments: []byte(c[1])})
	}
	return m
}

// TestRecoveryPlansCalls: recovery hands the runner each call of a reply
// with its preset answer when it must not run, instead of leaving answers
// in the Agent; a reply cut at the output limit has all its calls answered
// ahead.
func TestRecoveryPlansCalls(t *testing.T) {
	a := newHarness(t, ollamatest.Qwen3()).agent
	read := [2]string{"read_file", `{"path":"hello.txt"}`}
	m := reply(read, [2]string{"no_such_tool", `{}`})
	plan := a.recoverCalls(newTurn(), &m, "stop").plan
	if len(plan.calls) != 2 || len(m.ToolCalls) != 2 {
		t.Fatalf("plan of %d calls for a reply of %d", len(plan.calls), len(m.ToolCalls))
	}
	if p := plan.calls[0]; p.preset != nil || p.call.ID != m.ToolCalls[0].ID || p.call.ID == "" {
		t.Errorf("a valid call is planned as %+v (reply's id %q)", p, m.ToolCalls[0].ID)
	}
	if p := plan.calls[1].preset; p == nil || p.Summary != InvalidCall || !p.IsError {
		t.Errorf("an unknown tool is answered ahead with %+v", p)
	}

	m = reply(read, read)
	for i, p := range a.recoverCalls(newTurn(), &m, "length").plan.calls {
		if p.preset == nil || !strings.Contains(p.preset.Output, "cut off at the output limit") {
			t.Errorf("call %d of a cut reply is planned to run: %+v", i, p)
		}
	}
}

// TestRepeatsCountPerTurn: the loop guard's counts belong to the turn
// value. The third identical call of a turn is answered with a correction;
// a new turn starts counting afresh.
func TestRepeatsCountPerTurn(t *testing.T) {
	a := newHarness(t, ollamatest.Qwen3()).agent
	read := [2]string{"read_file", `{"path":"hello.txt"}`}
	tn := newTurn()
	for i := range 3 {
		m := reply(read)
		p := a.recoverCalls(tn, &m, "stop").plan.calls[0]
		if repeated := p.preset != nil && p.preset.Summary == "not run: repeated call"; repeated != (i == 2) {
			t.Errorf("call %d of the turn: preset %+v", i+1, p.preset)
		}
	}
	m := reply(read)
	if p := a.recoverCalls(newTurn(), &m, "stop").plan.calls[0]; p.preset != nil {
		t.Errorf("the first call of a new turn is answered ahead: %+v", p.preset)
	}
}

// TestRunnerConsumesThePlan: the runner answers a preset call with its
// preset result without running it, and puts a call's notes before the
// result of running it.
func TestRunnerConsumesThePlan(t *testing.T) {
	a := newHarness(t, ollamatest.Qwen3()).agent
	ahead := tools.Result{Output: "answered ahead", IsError: true, Summary: "x"}
	plan := callPlan{calls: []plannedCall{
		{call: models.ToolCall{ID: "call_1", Name: "read_file", Arguments: []byte(`{"path":"hello.txt"}`)}, repair: models.RepairNative,
			notes: []string{"a note"}},
		{call: models.ToolCall{ID: "call_2", Name: "read_file", Arguments: []byte(`{"path":"b.txt"}`)}, repair: models.RepairNative,
			preset: &ahead},
	}, limit: 4096}
	msgs := a.runCalls(t.Context(), newTurn(), plan, func(Event) {})
	if len(msgs) != 2 {
		t.Fatalf("%d results for 2 calls", len(msgs))
	}
	if got := msgs[0].Content; !strings.HasPrefix(got, "(a note)\n") || !strings.Contains(got, "hello from the fixture") {
		t.Errorf("the run call's result = %q", got)
	}
	if got := msgs[1].Content; got != "answered ahead" {
		t.Errorf("the preset call's result = %q, want its preset", got)
	}
}
