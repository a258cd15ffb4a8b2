package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

const testPlan = "Goal: greet in French.\n1. Edit hello.txt: replace hello with bonjour.\n2. Check: read hello.txt."

// metaMemRecorder is a memRecorder that keeps session meta values.
type metaMemRecorder struct {
	memRecorder
	meta map[string]string
}

func (r *metaMemRecorder) SetMeta(_ context.Context, _, key, value string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.meta[key] = value
	return nil
}

func (h *harness) emit(e Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	h.mu.Unlock()
}

// TestPlanModeOnlyReads: in plan mode the model is offered only the
// read-only tools, a write it calls anyway is answered without running,
// nothing is unlocked by the user's words, and the answer it ends with
// comes back as the proposed plan just before Done.
func TestPlanModeOnlyReads(t *testing.T) {
	wt := &writeTool{}
	h := newHarness(t, ollamatest.Qwen3(), withTools(wt), withConfig(func(c *Config) { c.PlanMode = true }))
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "touch", Args: `{}`}, {Name: "read_file", Args: `{"path":"hello.txt"}`}}},
		ollamatest.Reply{Content: testPlan},
	)
	if err := h.run(t.Context(), "make hello.txt greet in French"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	for i, r := range reqs {
		if names := toolNamesOf(r); slices.Contains(names, "touch") || !slices.Contains(names, "read_file") {
			t.Errorf("request %d offers %v in plan mode", i, names)
		}
	}
	if first := reqs[0].Messages[len(reqs[0].Messages)-1].Content; !strings.HasPrefix(first, "make hello.txt greet in French\n\n[Plan mode:") {
		t.Errorf("the user message is %q", first)
	}
	if wt.ran {
		t.Error("a write ran in plan mode")
	}
	ends := toolEnds(h)
	if len(ends) != 2 || !ends[0].IsError || !strings.Contains(ends[0].Output, "plan mode allows only the read-only tools") || ends[1].IsError {
		t.Errorf("tool results %+v", ends)
	}
	types := h.types()
	if n := len(types); n < 2 || types[n-2] != "plan" || types[n-1] != "done" {
		t.Fatalf("events end %v, want plan, done", types)
	}
	if got := h.agent.ProposedPlan(); got != testPlan {
		t.Errorf("proposed plan %q", got)
	}
}

// TestPlanAcceptPinsTheGoal: accepting the plan leaves plan mode, offers
// the tools again and pins the plan after the system prompt, where it
// stays for the next turns; sending a plan back asks for a revision.
func TestPlanAcceptPinsTheGoal(t *testing.T) {
	wt := &writeTool{}
	allow := ApproverFunc(func(context.Context, Approval) (Decision, error) { return Decision{Allow: true}, nil })
	h := newHarness(t, ollamatest.Qwen3(), withTools(wt), withApprover(allow), withConfig(func(c *Config) { c.PlanMode = true }))
	rec := &metaMemRecorder{meta: map[string]string{}}
	h.agent.rec = rec
	if err := h.agent.AcceptPlan(t.Context(), "", h.emit); !errors.Is(err, ErrNoPlan) {
		t.Fatalf("accepting no plan: %v", err)
	}
	h.srv.Script(
		ollamatest.Reply{Content: "1. Edit hello.txt."},
		ollamatest.Reply{Content: testPlan},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "touch", Args: `{}`}}},
		ollamatest.Reply{Content: "Done: hello.txt says bonjour."},
		ollamatest.Reply{Content: "Yes."},
	)
	if err := h.run(t.Context(), "make hello.txt greet in French"); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.RevisePlan(t.Context(), "also say how to check it", h.emit); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if last := reqs[1].Messages[len(reqs[1].Messages)-1].Content; !strings.HasPrefix(last, "The user sent your plan back with this comment: also say how to check it") {
		t.Errorf("the revision asks %q", last)
	}
	if h.agent.ProposedPlan() != testPlan || rec.meta[MetaProposed] != testPlan {
		t.Fatalf("proposed %q, stored %q", h.agent.ProposedPlan(), rec.meta[MetaProposed])
	}

	if err := h.agent.AcceptPlan(t.Context(), "", h.emit); err != nil {
		t.Fatal(err)
	}
	if err := h.run(t.Context(), "is it done?"); err != nil {
		t.Fatal(err)
	}
	reqs = h.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, r := range reqs[2:] {
		system := r.Messages[0].Content
		if !strings.Contains(system, "You are a test.") || !strings.Contains(system, "Goal: the plan the user accepted") || !strings.Contains(system, testPlan) {
			t.Errorf("request %d after accepting: system prompt %q", i+2, system)
		}
		if !slices.Contains(toolNamesOf(r), "touch") {
			t.Errorf("request %d after accepting offers %v", i+2, toolNamesOf(r))
		}
	}
	if go1 := reqs[2].Messages[len(reqs[2].Messages)-1].Content; !strings.HasPrefix(go1, "The user accepted the plan. Carry it out now") {
		t.Errorf("the accepting message is %q", go1)
	}
	if strings.Contains(reqs[1].Messages[0].Content, "Goal:") {
		t.Error("the goal was pinned before the plan was accepted")
	}
	if !wt.ran || h.agent.PlanMode() || h.agent.ProposedPlan() != "" || h.agent.Goal() != testPlan {
		t.Errorf("ran %v, plan mode %v, proposed %q, goal %q", wt.ran, h.agent.PlanMode(), h.agent.ProposedPlan(), h.agent.Goal())
	}
	if rec.meta[MetaGoal] != testPlan || rec.meta[MetaProposed] != "" {
		t.Errorf("stored %v", rec.meta)
	}

	// A resumed session gets the goal back from its config.
	r := New(Config{SessionID: "s1", Model: "qwen3:8b", NumCtx: 8192, System: "You are a test.", Goal: testPlan}, nil, h.agent.tools, rec, nil, counter(t))
	if system, _ := r.Prefix(); !strings.Contains(system, testPlan) {
		t.Errorf("resumed prefix %q", system)
	}
}
