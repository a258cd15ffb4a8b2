package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/openaitest"
)

// newOpenAIFixture is a fixture whose model server is a fake
// OpenAI-compatible server; OLLAMA_HOST is unset, so nothing reaches
// the fixture's fake Ollama.
func newOpenAIFixture(t *testing.T, opts ...openaitest.Option) (*fixture, *openaitest.Server) {
	t.Helper()
	f := newFixture(t)
	delete(f.env, "OLLAMA_HOST")
	srv := openaitest.New(t, opts...)
	return f, srv
}

// config writes the user's config file.
func (f *fixture) config(text string) {
	f.t.Helper()
	dir := filepath.Join(f.env["XDG_CONFIG_HOME"], "tern")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func TestOpenAIAsk(t *testing.T) {
	t.Parallel()
	for _, flavor := range []openaitest.Flavor{openaitest.LlamaServer, openaitest.VLLM, openaitest.LMStudio} {
		t.Run(string(flavor), func(t *testing.T) {
			f, srv := newOpenAIFixture(t, openaitest.WithFlavor(flavor), openaitest.WithWindow(12288))
			srv.Script(
				openaitest.Reply{Thinking: "I should read it.", ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}}},
				openaitest.Reply{Content: "It is a demo repository."},
			)
			// --host alone: tern asks the server what it is.
			code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "what does this repo do?")
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			if out != "It is a demo repository.\n" {
				t.Errorf("stdout = %q", out)
			}
			for _, want := range []string{"using " + srv.Model() + " (the server's only chat model", "▸ read_file", "✓ README.md"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			chats := srv.Chats()
			if len(chats) != 2 {
				t.Fatalf("%d chat requests", len(chats))
			}
			first, second := chats[0], chats[1]
			if len(first.Tools) == 0 || first.Model != srv.Model() || first.MaxTokens <= 0 || first.StreamOptions == nil || !first.Stream {
				t.Errorf("first request: %+v", first)
			}
			if !strings.Contains(first.Messages[0].Content, "Run go test before committing.") {
				t.Errorf("system prompt lacks the AGENTS.md notes")
			}
			n := len(second.Messages)
			call, result := second.Messages[n-2], second.Messages[n-1]
			if len(call.ToolCalls) != 1 || call.ToolCalls[0].Function.Arguments != `{"path":"README.md"}` || result.Role != "tool" ||
				result.ToolCallID != call.ToolCalls[0].ID || !strings.Contains(result.Content, "A demo repository.") {
				t.Errorf("the tool result did not go back paired with its call: %+v / %+v", call, result)
			}
			if first.PromptTokens+first.MaxTokens > 12288 || second.PromptTokens+second.MaxTokens > 12288 {
				t.Errorf("a request exceeded the served window: %d+%d, %d+%d", first.PromptTokens, first.MaxTokens, second.PromptTokens, second.MaxTokens)
			}
		})
	}
}

func TestOpenAIAskJSONUsage(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.VLLM))
	f.config("backend = \"openai\"\nbase_url = \"" + srv.URL() + "/v1\"\n")
	srv.Script(openaitest.Reply{Content: "Hello."})
	out, _ := f.mustTern("ask", "--json", "hi")
	msg := event(t, out, "message")
	usage := msg["usage"].(map[string]any)
	if usage["prompt_tokens"].(float64) != float64(srv.Chats()[0].PromptTokens) || usage["num_ctx"].(float64) != openaitest.DefaultWindow {
		t.Errorf("usage = %v; want the server's count and its window", usage)
	}

	f2, quiet := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.VLLM), openaitest.WithoutUsage())
	f2.config("backend = \"openai\"\nbase_url = \"" + quiet.URL() + "\"\n")
	quiet.Script(openaitest.Reply{Content: "Hello."})
	out, errOut := f2.mustTern("ask", "--json", "hi")
	usage = event(t, out, "message")["usage"].(map[string]any)
	if usage["prompt_tokens"].(float64) != 0 || usage["estimate"].(float64) <= 0 {
		t.Errorf("usage = %v; a server without usage leaves tern's estimate", usage)
	}
	if n := event(t, out, "notice"); !strings.Contains(n["text"].(string), "the counts shown are tern's estimate") {
		t.Errorf("no notice that counts are estimates: %v\n%s", n, errOut)
	}
}

// event returns the first NDJSON event of type typ (for notices, the one
// that mentions usage when there is one).
func event(t *testing.T, out, typ string) map[string]any {
	t.Helper()
	var found map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if ev["type"] == typ && (found == nil || typ == "notice" && strings.Contains(sc.Text(), "usage")) {
			found = ev
		}
	}
	if found == nil {
		t.Fatalf("no %s event in:\n%s", typ, out)
	}
	return found
}

func TestOpenAIWindowIsNeverGuessed(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.LlamaServer), openaitest.WithHiddenWindow())
	code, _, errOut := f.tern(t.Context(), "ask", "--backend", "openai", "--host", srv.URL(), "hi")
	if code != 1 || !strings.Contains(errOut, "does not say its context window, and tern never guesses one: pass --ctx N") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	srv.Script(openaitest.Reply{Content: "Hi."})
	code, out, errOut := f.tern(t.Context(), "ask", "--backend", "openai", "--host", srv.URL(), "--ctx", "6000", "hi")
	if code != 0 || out != "Hi.\n" || !strings.Contains(errOut, "does not say its context window; using --ctx 6000") {
		t.Errorf("exit %d, out %q: %s", code, out, errOut)
	}

	// A window the server states wins over a larger --ctx.
	f2, big := newOpenAIFixture(t, openaitest.WithWindow(4096))
	big.Script(openaitest.Reply{Content: "Hi."})
	out, _ = f2.mustTern("ask", "--json", "--host", big.URL(), "--ctx", "32768", "hi")
	if u := event(t, out, "message")["usage"].(map[string]any); u["num_ctx"].(float64) != 4096 {
		t.Errorf("window %v, want the server's 4096", u["num_ctx"])
	}
}

// TestOpenAIServerStillLoading: tern ask against a llama-server that is
// still loading its model says so and what to do, not that the server
// hides its window.
func TestOpenAIServerStillLoading(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithLoading())
	code, _, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "hi")
	if code == 0 || !strings.Contains(errOut, "is still loading its model") || strings.Contains(errOut, "--ctx") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestOpenAIThinkingInContent: reasoning a server leaves in the content
// (LM Studio without "separate reasoning_content") is not the answer.
func TestOpenAIThinkingInContent(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.LMStudio))
	srv.Script(openaitest.Reply{Chunks: []string{"<think>", "I could call <tool_call>{\"name\": \"run_command\"}</tool_call> but need not.", "</think>", "\n\nIt is a demo."}})
	code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "--tool-mode", "text", "what is this?")
	if code != 0 || out != "It is a demo.\n" || strings.Contains(errOut, "run_command") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// TestOpenAIRolesAlternate: a chat template that wants user and
// assistant turns to alternate (Gemma 3's, Mistral's) gets them so, also
// when tern has two things to say in a row: the results of two calls in
// the text tool protocol.
func TestOpenAIRolesAlternate(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithAlternatingRoles())
	srv.Script(
		openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}, {Name: "list_dir", Args: `{"path":"."}`}}},
		openaitest.Reply{Content: "It is a demo repository."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "--tool-mode", "text", "what is this?")
	if code != 0 || out != "It is a demo repository.\n" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// TestOpenAICallIDsEveryTemplateTakes: the ids of the calls tern sends
// back (its own numbering, also for calls read from the model's text)
// must pass the strictest template known, Mistral's (9 letters and
// digits), or every request after a call fails, which reads as the server
// failing to parse the call and pushes the session to the text protocol.
func TestOpenAICallIDsEveryTemplateTakes(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithNineCharCallIDs())
	srv.Script(
		openaitest.Reply{Content: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>"},
		openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "list_dir", Args: `{"path":"."}`}}},
		openaitest.Reply{Content: "It is a demo repository."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "what is this?")
	if code != 0 || out != "It is a demo repository.\n" || strings.Contains(errOut, "could not parse") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if chats := srv.Chats(); len(chats) != 3 || len(chats[2].Tools) == 0 {
		t.Errorf("%d requests; the last must still offer native tools", len(chats))
	}
}

func TestOpenAIToolsRefused(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.LlamaServer), openaitest.WithoutTools())
	srv.Script(
		openaitest.Reply{Content: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>"},
		openaitest.Reply{Content: "A demo."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "what is this?")
	if code != 0 || out != "A demo.\n" {
		t.Fatalf("exit %d, out %q:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "the server refused tools") || !strings.Contains(errOut, "--jinja") || !strings.Contains(errOut, "✓ README.md") {
		t.Errorf("stderr:\n%s", errOut)
	}
	for _, r := range srv.Chats() {
		if len(r.Tools) > 0 {
			t.Errorf("tools were sent to a server that refuses them")
		}
	}
}

// TestOpenAIWindowKept: the model's tokenizer counts well over what tern's
// does. With usage, tern calibrates from the first reply and never sends
// a prompt over the window. Without usage, llama-server refuses the
// over-long prompt (it does not cut it as Ollama does); tern takes the
// refusal as a cut prompt, learns the factor from the count in it,
// compacts and asks again, and the answer arrives.
func TestOpenAIWindowKept(t *testing.T) {
	t.Parallel()
	// vLLM refuses the prompt and max_tokens together, in words that give
	// no count of the prompt when only max_tokens does not fit; its
	// tokenizer here counts twice what tern does (llama-server's, three
	// times: the most tern corrects for).
	for _, tc := range []struct {
		flavor  openaitest.Flavor
		usage   bool
		perByte float64
	}{{openaitest.LlamaServer, true, 0.75}, {openaitest.LlamaServer, false, 0.75}, {openaitest.VLLM, false, 0.5}} {
		usage := tc.usage
		t.Run(string(tc.flavor)+map[bool]string{true: "/usage", false: "/no usage"}[usage], func(t *testing.T) {
			count := func(s string) int { return int(float64(len(s)) * tc.perByte) }
			opts := []openaitest.Option{openaitest.WithFlavor(tc.flavor), openaitest.WithWindow(4096), openaitest.WithCounter(count)}
			if !usage {
				opts = append(opts, openaitest.WithoutUsage())
			}
			f, srv := newOpenAIFixture(t, opts...)
			big := strings.Repeat("The quick brown fox jumps over the lazy dog.\n", 250)
			if err := os.WriteFile(filepath.Join(f.dir, "big.txt"), []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
			srv.Respond(func(r openaitest.Request) openaitest.Reply {
				if r.Messages[len(r.Messages)-1].Role == "tool" {
					return openaitest.Reply{Content: "It repeats a pangram."}
				}
				return openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path":"big.txt"}`}}}
			})
			code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "what is in big.txt?")
			if code != 0 || !strings.Contains(out, "pangram") {
				t.Fatalf("exit %d, out %q:\n%s", code, out, errOut)
			}
			refused := 0
			for _, r := range srv.Chats() {
				t.Logf("request of %d messages: %d tokens", len(r.Messages), r.PromptTokens)
				if r.PromptTokens >= 4096 || tc.flavor == openaitest.VLLM && r.PromptTokens+r.MaxTokens > 4096 {
					refused++
				}
			}
			switch {
			case usage && refused > 0:
				t.Errorf("%d requests went over the window although the server reported usage", refused)
			case !usage && (refused == 0 || !strings.Contains(errOut, "Compacting and asking again")):
				t.Errorf("%d refusals; stderr:\n%s", refused, errOut)
			}
			if strings.Contains(errOut, "Ollama") {
				t.Errorf("a notice names Ollama, which is not the server here:\n%s", errOut)
			}
		})
	}
}

func TestOpenAIIndexAndSearch(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithEmbeddings("", 64))
	if err := os.Remove(filepath.Join(f.dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(f.dir, os.DirFS("testdata/coderepo")); err != nil {
		t.Fatal(err)
	}
	f.config("base_url = \"" + srv.URL() + "\"\n")
	out, errOut := f.mustTern("index")
	if errOut != "" || !strings.Contains(out, "embedded with nomic-embed-text (task prefixes)") || srv.Embeds() < 2 {
		t.Errorf("index through /v1/embeddings (%d requests):\n%s\n%s", srv.Embeds(), out, errOut)
	}
	out, _ = f.mustTern("search", "--json", "where are the settings read from a file")
	list := hits(t, out)
	if len(list) == 0 || list[0].Path != "config/parse.go" {
		t.Fatalf("hits = %+v", list)
	}
	vectors := false
	for _, h := range list {
		vectors = vectors || h.VectorRank > 0
	}
	if !vectors {
		t.Errorf("no hit came from the vectors: %+v", list)
	}

	// A server without --embeddings: lexical, with the reason and the fix.
	f2, plain := newOpenAIFixture(t)
	f2.config("backend = \"openai\"\nbase_url = \"" + plain.URL() + "\"\n")
	_, errOut = f2.mustTern("index")
	if !strings.Contains(errOut, "without embeddings") || !strings.Contains(errOut, "--embeddings") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

func TestOpenAIDoctor(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithWindow(16384), openaitest.WithEmbeddings("", 32))
	f.config("base_url = \"" + srv.URL() + "/v1\"\n")
	out, errOut := f.mustTern("doctor")
	for _, want := range []string{
		"Server      ✓ llama-server b6710-74b8fc17 at " + srv.URL(),
		"Chat model  ✓ " + srv.Model(),
		"Context     ✓ 16384 tokens (llama-server /props default_generation_settings.n_ctx)",
		"Tools       ✓ the server takes native tool calls",
		"Usage       ✓ the server reports token usage",
		"Embeddings  ✓ nomic-embed-text at " + srv.URL(),
		"All checks passed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s%s", want, out, errOut)
		}
	}

	f2, vllm := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.VLLM), openaitest.WithoutTools(), openaitest.WithoutUsage())
	code, out, _ := f2.tern(t.Context(), "doctor", "--backend", "openai", "--host", vllm.URL())
	for _, want := range []string{
		"Server      ✓ vLLM at ",
		"Context     ✓ 8192 tokens (vLLM /v1/models max_model_len)",
		"Tools       · the server refused tools",
		"--enable-auto-tool-choice",
		"Usage       · the server reports no token usage",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exit %d; doctor lacks %q:\n%s", code, want, out)
		}
	}
}
