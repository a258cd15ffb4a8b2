package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
)

// holdFirst makes the fake Ollama answer the prompt first only once the
// test calls the returned release, and any other prompt at once with
// "Re: PROMPT.".
func holdFirst(t *testing.T, h *harness, first string) (release func()) {
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	h.srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if last == first {
			<-gate
		}
		return ollamatest.Reply{Content: "Re: " + last + "."}
	})
	return release
}

// userPrompts lists the user messages of the requests made so far, each
// request's last one.
func userPrompts(srv *ollamatest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == string(models.RoleUser) {
				out = append(out, r.Messages[i].Content)
				break
			}
		}
	}
	return out
}

// TestPromptsQueueWhileTheAgentWorks sends two prompts while a reply
// streams: they wait in view, in order, and go to the model one after
// the other once the agent is free.
func TestPromptsQueueWhileTheAgentWorks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	release := holdFirst(t, h, "first")
	h.send("first")
	h.waitFor("generating")
	h.send("second")
	h.send("third")
	h.waitFor("queued 1  second", "queued 2  third", "queued; sent when generating is done · Esc cancels the queue")
	// "generating" can be drawn before the fake server has the request.
	h.waitUntil("the first request", func() bool { return len(h.srv.Requests()) > 0 })
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests: a queued prompt went out while the first turn ran", n)
	}
	release()
	s := h.waitFor("Re: first.", "Re: second.", "Re: third.")
	h.idle()
	if strings.Contains(s, "queued 1") {
		t.Errorf("the queue is still shown after it was sent:\n%s", s)
	}
	if got := userPrompts(h.srv); strings.Join(got, "|") != "first|second|third" {
		t.Errorf("the model got the prompts %q, want first, second, third in order", got)
	}
	if i, j := strings.Index(s, "› second"), strings.Index(s, "Re: second."); i < 0 || j < i || strings.Index(s, "Re: first.") > i {
		t.Errorf("the second prompt is not shown before its answer:\n%s", s)
	}
}

// TestEscCancelsTheQueueThenTheReply: a first Esc gives the queued prompts
// back to the prompt and lets the reply go on; a second stops the reply,
// as Ctrl+C does.
func TestEscCancelsTheQueueThenTheReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	holdFirst(t, h, "talk slowly")
	h.send("talk slowly")
	h.waitFor("generating")
	h.send("then this")
	h.waitFor("queued 1  then this")
	h.key(tcell.KeyEscape)
	h.waitFor("queue cancelled: the queued prompt is back in the prompt")
	h.waitGone("queued 1")
	if got := h.inputText(); got != "then this" {
		t.Errorf("the cancelled prompt is not back in the prompt: %q", got)
	}
	h.waitUntil("the reply to go on", func() bool { return h.app.job != nil })
	h.key(tcell.KeyEscape)
	h.waitFor("cancelled; what was said is kept in the session")
	h.idle()
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests: the cancelled prompt was sent", n)
	}
	if got := h.inputText(); got != "then this" {
		t.Errorf("the prompt lost its text when the reply was cancelled: %q", got)
	}
}

// TestCtrlCClearsThePromptFirst: with text in the prompt Ctrl+C clears it
// (Up brings it back); on an empty prompt a second press quits only within
// the quit window; Ctrl+Q with text warns before it quits.
func TestCtrlCClearsThePromptFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.online()
	h.typeText("half a thought")
	h.key(tcell.KeyCtrlC)
	h.waitFor("prompt cleared; Up brings it back")
	if got := h.inputText(); got != "" {
		t.Fatalf("Ctrl+C left %q in the prompt", got)
	}
	h.key(tcell.KeyUp)
	h.waitUntil("the text back", func() bool { return h.app.input.GetText() == "half a thought" })

	h.key(tcell.KeyCtrlQ)
	h.waitFor("the prompt holds unsent text; Ctrl+Q again quits without sending")
	h.typeText("!") // any other key disarms
	h.waitGone("Ctrl+Q again quits")
	h.key(tcell.KeyCtrlC)
	h.waitUntil("an empty prompt", func() bool { return h.app.input.GetText() == "" })

	h.key(tcell.KeyCtrlC)
	h.waitFor("Press Ctrl+C again to quit")
	h.waitGone("Press Ctrl+C again to quit") // the window passes
	h.key(tcell.KeyCtrlC)
	h.waitFor("Press Ctrl+C again to quit")
	select {
	case <-h.done:
		t.Fatal("a Ctrl+C after the quit window quit")
	default:
	}
	h.key(tcell.KeyCtrlC)
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		h.done <- nil // for the cleanup
	case <-time.After(wait):
		t.Fatal("two Ctrl+C did not quit")
	}
}
