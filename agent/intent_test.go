package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// fakeTool is a tool with a given schema and effect that records whether
// it ran.
type fakeTool struct {
	spec   models.ToolSpec
	effect tools.Effect
	ran    []string
}

func (f *fakeTool) Spec() models.ToolSpec { return f.spec }
func (f *fakeTool) Effect() tools.Effect  { return f.effect }
func (f *fakeTool) Run(_ context.Context, in tools.Input) tools.Result {
	f.ran = append(f.ran, string(in.Args))
	return tools.Result{Output: "ran " + string(in.Args), Summary: "ran"}
}

func runCommandTool() *fakeTool {
	return &fakeTool{effect: tools.Executes, spec: models.ToolSpec{Name: "run_command", Description: "run",
		Parameters: models.Schema(models.Param{Name: "command", Type: "string", Required: true})}}
}

func writeFileTool() *fakeTool {
	return &fakeTool{effect: tools.Writes, spec: models.ToolSpec{Name: "write_file", Description: "write",
		Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true},
			models.Param{Name: "content", Type: "string", Required: true})}}
}

var allowAll = withApprover(ApproverFunc(func(context.Context, Approval) (Decision, error) { return Decision{Allow: true}, nil }))

func TestCallOnlyInThinkingRuns(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Think = "true" }))
	// Verbatim shape: qwen3 plans the call in its thinking and sends an
	// empty answer.
	h.srv.Script(ollamatest.Reply{Thinking: "The user wants the file. I should read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"hello.txt\"}}\n</tool_call>"},
		ollamatest.Reply{Content: "It says hello."})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(ends) != 1 || ends[0].IsError || !strings.Contains(ends[0].Output, "hello from the fixture") {
		t.Fatalf("tool ends = %+v; want the read planned in thinking run", ends)
	}
	if h.rec.calls[0].Repair != "tagged+thinking" {
		t.Errorf("repair = %q", h.rec.calls[0].Repair)
	}
	if h.done().Reason != DoneStop || h.answer() != "It says hello." {
		t.Errorf("done %+v, answer %q", h.done(), h.answer())
	}
}

// TestOnlyTheLastCallInThinkingRuns: thinking weighs options; the call
// the model settled on is its last one, and a write it talked itself out
// of must not run.
func TestOnlyTheLastCallInThinkingRuns(t *testing.T) {
	wf := writeFileTool()
	h := newHarness(t, ollamatest.Qwen3(), withTools(wf), allowAll, withConfig(func(c *Config) { c.Think = "true" }))
	h.srv.Script(ollamatest.Reply{Thinking: "I could overwrite it right away: {\"name\": \"write_file\", \"arguments\": {\"path\": \"hello.txt\", \"content\": \"bye\"}}\n" +
		"No, I should see it first.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"hello.txt\"}}\n</tool_call>"},
		ollamatest.Reply{Content: "It says hello."})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	if len(wf.ran) != 0 {
		t.Fatalf("the write the model decided against ran: %v", wf.ran)
	}
	if ends := toolEnds(h); len(ends) != 1 || ends[0].IsError || !strings.Contains(ends[0].Output, "hello from the fixture") {
		t.Errorf("tool ends = %+v; want only the read", ends)
	}
}

func TestThinkingCallIgnoredWhenTheReplyAnswers(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Think = "true" }))
	h.srv.Script(ollamatest.Reply{Thinking: `Maybe {"name": "read_file", "arguments": {"path": "hello.txt"}} but I know it.`,
		Content: "The file hello.txt holds a greeting from the fixture; nothing else is in it, so no change is needed anywhere in the repository and the tests pass as they are. That is the whole answer to your question about its contents."})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	if n := len(toolEnds(h)); n != 0 || len(h.srv.Requests()) != 1 {
		t.Errorf("%d calls, %d requests; a real answer must end the turn", n, len(h.srv.Requests()))
	}
}

func TestCallsOfACutReplyDoNotRun(t *testing.T) {
	wf := writeFileTool()
	h := newHarness(t, ollamatest.Qwen3(), withTools(wf), allowAll)
	h.srv.Script(
		// Verbatim shape: the reply stops at num_predict while the
		// content is being written; done_reason "length".
		ollamatest.Reply{Content: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"app.py\", \"content\": \"import os\\n\\ndef main():\\n    print(\"hi\")\"}}\n</tool_call>", DoneReason: "length"},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}}, DoneReason: "length"},
		ollamatest.Reply{Content: "The file could not be written."})
	if err := h.run(t.Context(), "write app.py"); err != nil {
		t.Fatal(err)
	}
	if len(wf.ran) != 0 {
		t.Fatalf("a call of a cut reply ran: %v", wf.ran)
	}
	ends := toolEnds(h)
	if len(ends) != 2 || !ends[0].IsError || !strings.Contains(ends[0].Output, "cut off at the output limit") {
		t.Errorf("tool ends = %+v", ends)
	}
	if h.done().Reason != DoneStop {
		t.Errorf("done = %+v", h.done())
	}
}

func TestTruncatedArgumentsAreCorrected(t *testing.T) {
	wf := writeFileTool()
	h := newHarness(t, ollamatest.Qwen3(), withTools(wf), allowAll)
	h.srv.Script(ollamatest.Reply{Content: `{"name": "write_file", "arguments": {"path": "app.py", "content": "def main():\n    print(`},
		ollamatest.Reply{Content: "ok"})
	if err := h.run(t.Context(), "write app.py"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(wf.ran) != 0 || len(ends) != 1 || !strings.Contains(ends[0].Output, "cut off") {
		t.Errorf("ran %v, ends %+v", wf.ran, ends)
	}
}

func TestPlaceholderArgumentsAreRefused(t *testing.T) {
	wf := writeFileTool()
	h := newHarness(t, ollamatest.Qwen3(), withTools(wf), allowAll)
	h.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"path":"main.go","content":"<fileContent>"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "write_file", Args: `{"filePath":"/path/to/file","contents":"x"}`}}},
		ollamatest.Reply{Content: "ok"})
	if err := h.run(t.Context(), "write main.go"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(wf.ran) != 0 || len(ends) != 2 {
		t.Fatalf("ran %v, ends %+v", wf.ran, ends)
	}
	for _, e := range ends {
		if !e.IsError || !strings.Contains(e.Output, "is a placeholder") {
			t.Errorf("result = %q", e.Output)
		}
	}
}

func TestAnnouncedActionIsNudgedOnce(t *testing.T) {
	for _, reply := range []string{
		"I'll read the file hello.txt to see what it says.",
		"Let me check the contents of `hello.txt`:",
		"Voy a leer el archivo hello.txt.",
		"我来读取 hello.txt 文件。",
		"Сейчас я прочитаю файл hello.txt.",
	} {
		t.Run(reply, func(t *testing.T) {
			h := newHarness(t, ollamatest.Qwen3())
			h.srv.Script(ollamatest.Reply{Content: reply}, ollamatest.Reply{Content: reply})
			if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
				t.Fatal(err)
			}
			if n := len(h.srv.Requests()); n != 2 {
				t.Fatalf("%d requests; want the announcement nudged once, then taken as the answer", n)
			}
			nudge := h.lastMessage(1)
			if nudge.Role != "user" || !strings.Contains(nudge.Content, "you called no tool") ||
				!strings.Contains(nudge.Content, `{"name": "read_file", "arguments": {"path": "hello.txt"}}`) {
				t.Errorf("nudge = %q", nudge.Content)
			}
			if h.done().Reason != DoneStop {
				t.Errorf("done = %+v", h.done())
			}
		})
	}
}

func TestFinalAnswerEndsTheTurn(t *testing.T) {
	for _, reply := range []string{
		"hello.txt says hello from the fixture.",
		"The file greets the reader. Let me know if you need anything else.",
		"Done: I read hello.txt and it holds one line of greeting.",
	} {
		h := newHarness(t, ollamatest.Qwen3())
		h.srv.Script(ollamatest.Reply{Content: reply})
		if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
			t.Fatal(err)
		}
		if n := len(h.srv.Requests()); n != 1 {
			t.Errorf("%q: %d requests; a final answer must end the turn", reply, n)
		}
	}
}

// TestShellBlockAloneIsRunAsACommand: a reply that is one command, after
// the model says it runs it and in a shell fence, is a call of
// run_command: it runs (after approval) without a round of correction.
func TestShellBlockAloneIsRunAsACommand(t *testing.T) {
	rc := runCommandTool()
	h := newHarness(t, ollamatest.Qwen3(), withTools(rc), allowAll)
	h.srv.Script(ollamatest.Reply{Content: "I'll run the tests:\n\n```bash\n$ go test ./...\n```"},
		ollamatest.Reply{Content: "The tests pass."})
	if err := h.run(t.Context(), "run the tests"); err != nil {
		t.Fatal(err)
	}
	if len(rc.ran) != 1 || rc.ran[0] != `{"command":"go test ./..."}` || !strings.HasSuffix(h.answer(), "The tests pass.") {
		t.Errorf("ran %v, answer %q", rc.ran, h.answer())
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests; the command should run from the first reply", n)
	}
}

// TestShellBlockInAnAnswerIsTheAnswer: an answer that explains and shows
// commands, or tells the reader what to run, is an answer, run_command
// on offer or not.
func TestShellBlockInAnAnswerIsTheAnswer(t *testing.T) {
	for _, reply := range []string{
		"Use the race detector:\n\n```bash\ngo test -race ./...\n```\n\nIt slows the tests down, so keep it for CI and for hunting a flaky test.",
		"To find data races, run the tests with the race detector:\n\n```bash\ngo test -race ./...\n```",
		"For example with the race detector:\n\n```shell\ngo test -race ./...\n```",
	} {
		rc := runCommandTool()
		h := newHarness(t, ollamatest.Qwen3(), withTools(rc), allowAll)
		h.srv.Script(ollamatest.Reply{Content: reply})
		if err := h.run(t.Context(), "how do I find data races?"); err != nil {
			t.Fatal(err)
		}
		if n := len(h.srv.Requests()); n != 1 || len(rc.ran) != 0 {
			t.Errorf("%q: %d requests, ran %v; an answer must end the turn", reply, n, rc.ran)
		}
	}
}

func TestShellBlockWithoutRunCommandIsAnAnswer(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(ollamatest.Reply{Content: "Run this:\n```bash\ngo test ./...\n```"})
	if err := h.run(t.Context(), "how do I run the tests?"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests; without run_command a shell block is the answer", n)
	}
}

func TestAnnouncesAction(t *testing.T) {
	yes := []string{
		"I'll read main.go first.", "Let me search for the definition.", "I will now run the tests:",
		"Je vais lire le fichier.", "Ich werde die Datei öffnen.", "Vou ler o arquivo.",
		"让我查看一下这个文件。", "ファイルを確認します。", "Давайте посмотрим файл.", "파일을 확인하겠습니다.",
		strings.Repeat("Some analysis of the code. ", 30) + "Next, I'll edit the handler:",
		strings.Repeat("The parser reads tokens and builds a tree. ", 20) + "Let me check how the lexer handles strings.",
		// gpt-oss plans in the first person plural; others trail off.
		"We need to read the file main.go.", "To answer this, I should read main.go.", "Next step: read main.go.",
		"Calling read_file on main.go...", "Reading main.go now.", "Checking the directory structure…",
		"Vado a leggere il file.", "Ik ga het bestand lezen.", "Tôi sẽ đọc tệp main.go.", "Dosyayı okuyacağım.", "Sprawdzę plik main.go.",
	}
	no := []string{
		"", "The answer is 42.", "Let me know if you need anything else.",
		"I'll be happy to help with anything else.",
		strings.Repeat("The parser reads tokens. ", 30) + "Let me know if you want me to read more files.",
		strings.Repeat("I'll read the tests. The parser reads tokens and builds a tree. ", 12) + "That is all it does.",
		"Looking at the code, the bug is in parse().", "Checking the error is the caller's job.",
		"We need to talk about the design: the parser is too slow.",
	}
	for _, s := range yes {
		if !announcesAction(s) {
			t.Errorf("announcesAction(%q) = false", s)
		}
	}
	for _, s := range no {
		if announcesAction(s) {
			t.Errorf("announcesAction(%q) = true", s)
		}
	}
}

// TestRefusalIsRemindedOfItsTools plays whole turns of a model that says it
// cannot do what a tool it was offered does: it is reminded once, with the
// tools on offer and a call of the one it refused, and the call it then
// writes runs. A second refusal in the same turn is its answer: one
// reminder a turn.
func TestRefusalIsRemindedOfItsTools(t *testing.T) {
	const refusal = "I'm sorry, but I can't read files on your computer. You could open hello.txt yourself."
	t.Run("then calls", func(t *testing.T) {
		h := newHarness(t, ollamatest.Qwen3())
		h.srv.Script(ollamatest.Reply{Content: refusal}, readCall("hello.txt"), ollamatest.Reply{Content: "It says hello."})
		if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
			t.Fatal(err)
		}
		if n := len(h.srv.Requests()); n != 3 {
			t.Fatalf("%d requests; want the refusal, the call after the reminder, the answer", n)
		}
		reminder := h.lastMessage(1)
		if reminder.Role != "user" || !strings.Contains(reminder.Content, "You do have tools for this: ") ||
			!strings.Contains(reminder.Content, "read_file") || !strings.Contains(reminder.Content, `"name": "read_file"`) {
			t.Errorf("reminder = %q", reminder.Content)
		}
		if ends := toolEnds(h); len(ends) != 1 || ends[0].IsError {
			t.Errorf("tool ends = %+v; want read_file run once", ends)
		}
		if !slices.Contains(h.notices(), "the model said it cannot do what its tools do; reminding it of its tools") {
			t.Errorf("notices = %q", h.notices())
		}
		if !strings.HasSuffix(h.answer(), "It says hello.") || h.done().Reason != DoneStop {
			t.Errorf("answer = %q, done %+v", h.answer(), h.done())
		}
	})
	t.Run("refuses again", func(t *testing.T) {
		h := newHarness(t, ollamatest.Qwen3())
		h.srv.Script(ollamatest.Reply{Content: refusal}, ollamatest.Reply{Content: refusal})
		if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
			t.Fatal(err)
		}
		if n := len(h.srv.Requests()); n != 2 || h.done().Reason != DoneStop {
			t.Fatalf("%d requests, done %+v; want one reminder, then the refusal as the answer", n, h.done())
		}
	})
}
