package agent

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
)

// bigModel is the escalation model of these tests, on a server of its own
// unless a test shares one.
func bigModel() ollamatest.Model {
	m := ollamatest.Llama32()
	m.Name = "big:latest"
	return m
}

// withEscalation points the harness's agent at a second server's model.
func withEscalation(t *testing.T, srv *ollamatest.Server, name string) option {
	t.Helper()
	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	return withConfig(func(c *Config) {
		c.Escalate = &Escalation{Client: client, Name: name, NumCtx: 16384, System: "You are the big model."}
	})
}

func escalations(h *harness) []Escalated { return eventsOf[Escalated](h) }

// TestEscalateWhenStuck: where the loop guard would stop the turn, the
// big model takes it over with its own window and prompt, the history
// fitted to it, and answers; the next turn is the session model's again.
func TestEscalateWhenStuck(t *testing.T) {
	big := ollamatest.New(t, ollamatest.WithModels(bigModel()), ollamatest.WithCounter(counter(t).Count))
	big.Script(ollamatest.Reply{Content: "hello.txt says hello from the fixture."})
	h := newHarness(t, ollamatest.Qwen3(), withEscalation(t, big, "big:latest"))
	h.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return readCall("hello.txt") })
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	d := h.done()
	if d.Reason != DoneStop || d.Escalated != "big:latest" || d.Turns != 6 || d.EscalatedTurns != 1 {
		t.Errorf("done %+v; want an answer after 5 requests to the stuck model and 1 to the big one", d)
	}
	if n := len(h.srv.Requests()); n != 5 {
		t.Errorf("the stuck model got %d requests, want 5 (2 reads, 2 corrections, the one escalated)", n)
	}
	reqs := big.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the big model got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "big:latest" || r.Options["num_ctx"] != float64(16384) || r.Messages[0].Content != "You are the big model." {
		t.Errorf("the big model's request: model %s, num_ctx %v, system %q", r.Model, r.Options["num_ctx"], r.Messages[0].Content)
	}
	// It reads the history, the last call answered with the correction
	// rather than "the turn was stopped".
	last := r.Messages[len(r.Messages)-1]
	if last.Role != "tool" || strings.Contains(last.Content, "stopped") || !strings.Contains(strings.ToLower(last.Content), "already") {
		t.Errorf("the big model's last message: %+v", last)
	}
	if es := escalations(h); len(es) != 1 || es[0].Model != "big:latest" || es[0].NumCtx != 16384 || !strings.Contains(es[0].Why, "qwen3:8b is stuck (the same tool call again and again)") {
		t.Errorf("escalation events %+v", es)
	}
	notices := strings.Join(h.notices(), "\n")
	if !strings.Contains(notices, "big:latest takes over this turn (window 16384 tokens); qwen3:8b resumes after it") || strings.Contains(notices, "kept repeating") {
		t.Errorf("notices:\n%s", notices)
	}
	if got := h.rec.messages[len(h.rec.messages)-1]; got.Model != "big:latest" || got.Content == "" {
		t.Errorf("the answer is stored as %+v, want the big model's", got)
	}

	// The next turn is the session model's, with its own window.
	h.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "done"} })
	h.events = nil
	if err := h.run(t.Context(), "thanks"); err != nil {
		t.Fatal(err)
	}
	if d := h.done(); d.Escalated != "" || len(big.Requests()) != 1 {
		t.Errorf("second turn %+v, %d requests to the big model", d, len(big.Requests()))
	}
	reqs = h.srv.Requests()
	if r := reqs[len(reqs)-1]; r.Model != "qwen3:8b" || r.Options["num_ctx"] != float64(8192) || r.Messages[0].Content == "You are the big model." {
		t.Errorf("after the escalation: model %s, num_ctx %v", r.Model, r.Options["num_ctx"])
	}
}

// TestEscalatedModelStuckToo: the turn escalates once; a big model stuck
// too is stopped as any.
func TestEscalatedModelStuckToo(t *testing.T) {
	big := ollamatest.New(t, ollamatest.WithModels(bigModel()), ollamatest.WithCounter(counter(t).Count))
	big.Respond(func(api.ChatRequest) ollamatest.Reply { return readCall("b.txt") })
	h := newHarness(t, ollamatest.Qwen3(), withEscalation(t, big, "big:latest"))
	h.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return readCall("hello.txt") })
	if err := h.run(t.Context(), "loop"); err != nil {
		t.Fatal(err)
	}
	d := h.done()
	if d.Reason != DoneStuck || d.Escalated != "big:latest" || len(escalations(h)) != 1 {
		t.Errorf("done %+v, %d escalations", d, len(escalations(h)))
	}
	if n := len(big.Requests()); n != 5 {
		t.Errorf("the big model got %d requests, want its own 5 before the stop", n)
	}
}

// TestEscalateOnEmptyReplies: the guard's other stop (replies without a
// call or text) escalates too, with the correction for the new model.
func TestEscalateOnEmptyReplies(t *testing.T) {
	big := ollamatest.New(t, ollamatest.WithModels(bigModel()), ollamatest.WithCounter(counter(t).Count))
	big.Script(ollamatest.Reply{Content: "Here is the answer."})
	h := newHarness(t, ollamatest.Qwen3(), withEscalation(t, big, "big:latest"))
	h.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: ""} })
	if err := h.run(t.Context(), "answer"); err != nil {
		t.Fatal(err)
	}
	if d := h.done(); d.Reason != DoneStop || d.Escalated != "big:latest" || h.answer() != "Here is the answer." {
		t.Errorf("done %+v, answer %q", d, h.answer())
	}
	if es := escalations(h); len(es) != 1 || !strings.Contains(es[0].Why, "(empty replies)") {
		t.Errorf("escalations %+v", es)
	}
	if r := big.Requests()[0]; r.Messages[len(r.Messages)-1].Role != "user" {
		t.Errorf("the big model's request ends with %+v, not the correction", r.Messages[len(r.Messages)-1])
	}
}

// TestEscalateNext: asked for, the next turn runs on the big model from
// its first request, and the one after on the session's. Sharing one
// server too small for both, each load unloads the other, and the load
// times are told.
func TestEscalateNext(t *testing.T) {
	small := ollamatest.Qwen3()
	h := newHarness(t, small)
	h.srv.AddModel(bigModel())
	client, err := ollama.New(h.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	h.agent.cfg.Escalate = &Escalation{Client: client, Name: "big:latest", NumCtx: 16384, System: "You are the big model."}
	h.srv.Respond(func(r api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "answered by " + r.Model} })

	if err := h.run(t.Context(), "first"); err != nil { // loads the small model
		t.Fatal(err)
	}
	if !h.agent.EscalateNext() || !h.agent.EscalationArmed() {
		t.Fatal("EscalateNext with an escalation model did not arm it")
	}
	h.events = nil
	if err := h.run(t.Context(), "hard question"); err != nil {
		t.Fatal(err)
	}
	if d := h.done(); d.Escalated != "big:latest" || h.answer() != "answered by big:latest" || h.agent.EscalationArmed() {
		t.Errorf("done %+v, answer %q, still armed %v", d, h.answer(), h.agent.EscalationArmed())
	}
	if es := escalations(h); len(es) != 1 || es[0].Why != "escalation asked for" {
		t.Errorf("escalations %+v", es)
	}
	h.events = nil
	if err := h.run(t.Context(), "easy one"); err != nil {
		t.Fatal(err)
	}
	if h.answer() != "answered by qwen3:8b" {
		t.Errorf("the turn after: %q", h.answer())
	}

	// With a GPU too small for both.
	tight := newHarness(t, small)
	srv := ollamatest.New(t, ollamatest.WithModels(small, bigModel()), ollamatest.WithCounter(counter(t).Count),
		ollamatest.WithVRAM(small.SizeBytes+bigModel().SizeBytes/2))
	client, err = ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	tight.srv, tight.agent.model = srv, client
	tight.agent.cfg.Escalate = &Escalation{Client: client, Name: "big:latest", NumCtx: 16384}
	srv.Respond(func(r api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
	for i, escalate := range []bool{false, true, false} {
		if escalate {
			tight.agent.EscalateNext()
		}
		tight.events = nil
		if err := tight.run(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		notices := strings.Join(tight.notices(), "\n")
		switch i {
		case 1:
			if !strings.Contains(notices, "big:latest loaded in 0.8 s (the server unloads the other model when both do not fit)") {
				t.Errorf("escalated turn's notices:\n%s", notices)
			}
		case 2:
			if !strings.Contains(notices, "qwen3:8b loaded again in 0.8 s after the escalation") {
				t.Errorf("the turn after's notices:\n%s", notices)
			}
		}
	}
	if srv.Evictions() != 2 {
		t.Errorf("%d evictions, want 2: each model unloaded the other", srv.Evictions())
	}
}

// TestNoEscalationModel: without one, EscalateNext says so and a stuck
// turn stops as before.
func TestNoEscalationModel(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	if h.agent.EscalateNext() || h.agent.Escalation() != "" {
		t.Error("armed an escalation without a model")
	}
}
