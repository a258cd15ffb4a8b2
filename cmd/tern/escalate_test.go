package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
	"github.com/ternhq/tern/session"
)

// TestEscalateThroughAsk: a model stuck repeating a call hands the turn
// to escalate_model, which answers; exit 0, the switch on stderr, the
// answer stored as the big model's. Then --resume --escalate hands a
// turn to it from the start, and the next turn is the session model's.
func TestEscalateThroughAsk(t *testing.T) {
	t.Parallel()
	big := ollamatest.Qwen36MoE()
	f := newFixture(t, ollamatest.Qwen3(), big)
	f.config("escalate_model = \"qwen3.6:35b-a3b\"\nram = 28\n")
	f.srv.Respond(func(r api.ChatRequest) ollamatest.Reply {
		if r.Model == big.Name {
			return ollamatest.Reply{Content: "It is a demo repository."}
		}
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}}
	})
	code, out, errOut := f.tern(t.Context(), "ask", "--model", "qwen3:8b", "what does this repo do?")
	if code != 0 || out != "It is a demo repository.\n" {
		t.Fatalf("exit %d, out %q:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"tern: qwen3:8b is stuck (the same tool call again and again): qwen3.6:35b-a3b takes over this turn (window 32768 tokens); qwen3:8b resumes after it",
		"tern: qwen3.6:35b-a3b loaded in 0.8 s",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Model != big.Name || last.Options["num_ctx"] != float64(32768) {
		t.Errorf("the last request: %s with num_ctx %v; want the big model with its own window", last.Model, last.Options["num_ctx"])
	}
	id, stored := f.lastAnswer()
	if stored.Model != big.Name {
		t.Errorf("the answer is stored as %q's", stored.Model)
	}

	// Asked for: the whole turn on the big model, the JSON stream saying so.
	before := len(f.srv.Requests())
	code, out, errOut = f.tern(t.Context(), "ask", "--json", "--resume", id, "--escalate", "and again")
	if code != 0 {
		t.Fatalf("--escalate: exit %d:\n%s", code, errOut)
	}
	var escalated, done map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		switch ev["type"] {
		case "escalated":
			escalated = ev
		case "done":
			done = ev
		}
	}
	if escalated["model"] != big.Name || escalated["why"] != "escalation asked for" || escalated["num_ctx"] != float64(32768) || done["escalated"] != big.Name {
		t.Errorf("escalated event %v, done %v", escalated, done)
	}
	if reqs := f.srv.Requests()[before:]; len(reqs) != 1 || reqs[0].Model != big.Name {
		t.Errorf("--escalate's turn made %d requests, the first to %s", len(reqs), reqs[0].Model)
	}

	// The next turn is the session model's.
	f.srv.Respond(func(r api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "answered by " + r.Model} })
	code, out, errOut = f.tern(t.Context(), "ask", "--resume", id, "thanks")
	if code != 0 || out != "answered by qwen3:8b\n" || strings.Contains(errOut, "takes over") {
		t.Errorf("the turn after: exit %d, out %q:\n%s", code, out, errOut)
	}
}

// TestEscalateWithout: --escalate without escalate_model is a clear error
// that leaves no session;
// one that is not installed is a notice, and a stuck turn stops as before.
func TestEscalateWithout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, _, errOut := f.tern(t.Context(), "ask", "--escalate", "hi")
	if code != 1 || !strings.Contains(errOut, "--escalate needs escalate_model in the config") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	// The session opened for the refused turn is not left behind, empty.
	if _, out, errOut := f.tern(t.Context(), "sessions"); out != "" || !strings.Contains(errOut, "no sessions yet") {
		t.Errorf("the refused --escalate left a session:\n%s%s", out, errOut)
	}
	f.config("escalate_model = \"huge:70b\"\n")
	f.srv.Respond(func(api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}}
	})
	code, _, errOut = f.tern(t.Context(), "ask", "loop")
	if code != exitStuck || !strings.Contains(errOut, "escalate_model huge:70b cannot be used (not installed: run `ollama pull huge:70b`); a stuck turn stops as it would without") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}

// TestEscalateOpenAI: a llama-server model stuck on its call hands the
// turn to a second llama-server's model (escalate_host), whose window is
// the one it serves.
func TestEscalateOpenAI(t *testing.T) {
	t.Parallel()
	f, small := newOpenAIFixture(t, openaitest.WithWindow(8192))
	big := openaitest.New(t, openaitest.WithModel("qwen3.6-35b-a3b"), openaitest.WithWindow(32768))
	for range 5 {
		small.Script(openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}})
	}
	big.Script(openaitest.Reply{Content: "It is a demo repository."})
	f.config("escalate_model = \"qwen3.6-35b-a3b\"\nescalate_host = \"" + big.URL() + "\"\n")
	code, out, errOut := f.tern(t.Context(), "ask", "--host", small.URL(), "what does this repo do?")
	if code != 0 || out != "It is a demo repository.\n" {
		t.Fatalf("exit %d, out %q:\n%s", code, out, errOut)
	}
	want := "is stuck (the same tool call again and again): qwen3.6-35b-a3b at " + big.URL() + " takes over this turn (window 32768 tokens)"
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if n := len(small.Chats()); n != 5 {
		t.Errorf("the stuck model got %d requests, want 5", n)
	}
	chats := big.Chats()
	if len(chats) != 1 || chats[0].Model != "qwen3.6-35b-a3b" {
		t.Fatalf("the big server got %+v", chats)
	}
	if m := chats[0].Messages; m[len(m)-1].Role != "tool" {
		t.Errorf("the big model's request ends with %+v, not the stuck call's result", m[len(m)-1])
	}
}

// lastAnswer is the last session's ID and its last assistant message.
func (f *fixture) lastAnswer() (string, session.StoredMessage) {
	f.t.Helper()
	st, err := session.OpenWorkspace(f.t.Context(), f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(f.t.Context(), 1)
	if err != nil || len(list) == 0 {
		f.t.Fatalf("sessions: %v, %v", list, err)
	}
	msgs, err := st.AllMessages(f.t.Context(), list[0].ID)
	if err != nil {
		f.t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return list[0].ID, msgs[i]
		}
	}
	f.t.Fatal("no assistant message")
	return "", session.StoredMessage{}
}

// TestEscalateInTmux: in the TUI a stuck turn moves to the escalation
// model; the status bar shows the switch while it answers, the turn's
// line says who answered, and the session's model is back after it.
// /escalate then runs the next prompt on the big model.
func TestEscalateInTmux(t *testing.T) {
	t.Parallel()
	big := ollamatest.Qwen36MoE()
	f := newFixture(t, ollamatest.Qwen3(), big)
	f.config("escalate_model = \"qwen3.6:35b-a3b\"\nram = 28\n")
	release := make(chan struct{})
	f.srv.Respond(func(r api.ChatRequest) ollamatest.Reply {
		if r.Model == big.Name {
			<-release // held until the test has seen the status bar
			return ollamatest.Reply{Content: "It is a demo repository."}
		}
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}}
	})
	tt := startTmux(t, f, 150, 34, "--model", "qwen3:8b")
	tt.waitPane("qwen3:8b │ tier 0", "new session")
	tt.keys("what does this repo do?", "Enter")
	// The gauge measures the big model's window while it answers.
	tt.waitPane("qwen3:8b → qwen3.6:35b-a3b", "/33k tok", "qwen3.6:35b-a3b takes over this turn (window 32768 tokens)")
	close(release)
	pane := tt.waitSettled("It is a demo repository.", "qwen3.6:35b-a3b answered 1 of this turn's 6 requests; qwen3:8b takes the next turn")
	tt.waitIdle()
	if status := tt.waitSettled("qwen3:8b │ tier 0", "/12k tok"); strings.Contains(status, "→ qwen3.6") {
		t.Errorf("the status bar still shows the escalation:\n%s", pane)
	}

	tt.keys("/escalate", "Enter")
	tt.waitPane("qwen3:8b (next: qwen3.6:35b-a3b)", "your next prompt runs on qwen3.6:35b-a3b; qwen3:8b takes the turn after")
	tt.keys("and in short?", "Enter")
	tt.waitSettled("qwen3.6:35b-a3b answered this turn; qwen3:8b takes the next")
	if reqs := f.srv.Requests(); reqs[len(reqs)-1].Model != big.Name {
		t.Errorf("/escalate's turn went to %s", reqs[len(reqs)-1].Model)
	}
}
