package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// TestOpenAIQuirksThroughAsk plays the servers' quirks through tern ask:
// two calls without ids (llama-server before b4970, some LM Studio
// builds), arguments sent as a JSON object instead of a string (older
// vLLM parsers), thinking as reasoning_content, and a reply cut at
// max_tokens (finish_reason "length") whose call must not run.
func TestOpenAIQuirksThroughAsk(t *testing.T) {
	t.Parallel()
	for _, flavor := range []openaitest.Flavor{openaitest.LlamaServer, openaitest.VLLM, openaitest.LMStudio} {
		t.Run(string(flavor), func(t *testing.T) {
			f, srv := newOpenAIFixture(t, openaitest.WithFlavor(flavor))
			srv.Script(
				openaitest.Reply{Thinking: "Both files matter.", NoIDs: true, ArgsAsObject: true, ToolCalls: []openaitest.Call{
					{Name: "read_file", Args: `{"path":"README.md"}`},
					{Name: "read_file", Args: `{"path":"main.go"}`},
				}},
				openaitest.Reply{FinishReason: "length", ToolCalls: []openaitest.Call{{Name: "write_file", Args: `{"path":"notes.md","content":"# Notes\n\nThe repo`}}},
				openaitest.Reply{Content: "A demo that prints hi."},
			)
			f.config("think = \"true\"\n")
			code, out, errOut := f.tern(t.Context(), "ask", "--yes", "--verbose", "--host", srv.URL(), "write notes on this repo")
			if code != 0 || out != "A demo that prints hi.\n" {
				t.Fatalf("exit %d, out %q:\n%s", code, out, errOut)
			}
			for _, want := range []string{"thinking: Both files matter.", "✓ README.md", "✓ main.go", "cut off at the output limit"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if _, err := os.Stat(filepath.Join(f.dir, "notes.md")); err == nil {
				t.Error("the call of a reply cut at max_tokens ran: notes.md was written")
			}
			chats := srv.Chats()
			if len(chats) != 3 {
				t.Fatalf("%d chat requests", len(chats))
			}
			// The calls that came without ids go back with ids of tern's
			// own, distinct, each result paired with its call.
			msgs := chats[1].Messages
			var call *openaitest.Message
			for i := range msgs {
				if len(msgs[i].ToolCalls) > 0 {
					call = &msgs[i]
				}
			}
			if call == nil || len(call.ToolCalls) != 2 {
				t.Fatalf("the second request lacks the two calls: %+v", msgs)
			}
			ids := map[string]bool{}
			for _, tc := range call.ToolCalls {
				if tc.ID == "" || ids[tc.ID] {
					t.Errorf("call ids %+v: want distinct, non-empty", call.ToolCalls)
				}
				ids[tc.ID] = true
				if !strings.HasPrefix(tc.Function.Arguments, `{"path":`) {
					t.Errorf("arguments went back as %q, want a JSON string", tc.Function.Arguments)
				}
			}
			results := 0
			for _, m := range msgs {
				if m.Role == "tool" && ids[m.ToolCallID] {
					results++
				}
			}
			if results != 2 {
				t.Errorf("%d results paired with the calls, want 2: %+v", results, msgs)
			}
		})
	}
}

func TestOpenAIAPIKeyFromEnvironment(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.VLLM), openaitest.WithAPIKey("team-key"))
	f.config("backend = \"openai\"\nbase_url = \"" + srv.URL() + "/v1\"\n")
	code, _, errOut := f.tern(t.Context(), "ask", "hi")
	if code != 1 || !strings.Contains(errOut, "refused the API key: set TERN_API_KEY") {
		t.Errorf("without a key: exit %d: %s", code, errOut)
	}

	f.env["TERN_API_KEY"] = "team-key"
	srv.Script(openaitest.Reply{Content: "Hello."})
	out, _ := f.mustTern("ask", "hi")
	if out != "Hello.\n" {
		t.Errorf("with TERN_API_KEY: out %q", out)
	}

	// Auto-detection asks with the key too: a server that refuses
	// /v1/models without it is still an OpenAI-compatible server, not
	// an Ollama that is down.
	delete(f.env, "TERN_API_KEY")
	f.env["OPENAI_API_KEY"] = "team-key"
	f.config("")
	srv.Script(openaitest.Reply{Content: "Hi again."})
	out, _ = f.mustTern("ask", "--host", srv.URL(), "hi")
	if out != "Hi again.\n" {
		t.Errorf("with OPENAI_API_KEY and --host: out %q", out)
	}
}

// TestLlamaServerAPIKey: llama-server with --api-key lists its models
// to anyone but answers /props only with the key; without one, tern says
// to set it, not that the server hides its window.
func TestLlamaServerAPIKey(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithAPIKey("team-key"))
	code, _, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "hi")
	if code != 1 || !strings.Contains(errOut, "refused the API key: set TERN_API_KEY") || strings.Contains(errOut, "--ctx") {
		t.Errorf("without a key: exit %d: %s", code, errOut)
	}
}

// TestLMStudioLoadedModelFirst: LM Studio lists every model downloaded;
// with none asked for, tern takes the one it has loaded, not the first
// listed, which it has not loaded and whose window it cannot say.
func TestLMStudioLoadedModelFirst(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.LMStudio), openaitest.WithOtherModels("google/gemma-3-4b", "meta/llama-3.1-8b"),
		openaitest.WithOtherModelsFirst())
	srv.Script(openaitest.Reply{Content: "Hello."})
	code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "hi")
	if code != 0 || out != "Hello.\n" || !strings.Contains(errOut, "using "+srv.Model()+" (the chat model the server has loaded") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// TestOpenAIBackendAtOllama: --backend openai pointed at Ollama, whose /v1
// serves a model list but ignores the window tern plans: tern says to
// speak Ollama's own API to it, not to pass --ctx (which /v1 would not
// honour, cutting prompts at Ollama's default window).
func TestOpenAIBackendAtOllama(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, args := range [][]string{{"ask", "--backend", "openai", "--host", f.srv.URL(), "hi"}, {"ask", "--backend", "openai", "--host", f.srv.URL(), "--ctx", "16384", "hi"}} {
		code, _, errOut := f.tern(t.Context(), args...)
		if code != 1 || !strings.Contains(errOut, "is Ollama") || !strings.Contains(errOut, "drop --backend openai") || strings.Contains(errOut, "pass --ctx") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestOpenAIAutoDetection: with no --backend, the address decides. An
// Ollama (it answers /api/version) in base_url is used through the
// native API; an OpenAI-compatible server in OLLAMA_HOST is used through
// /v1. --backend ollama overrides detection.
func TestOpenAIAutoDetection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.config("base_url = \"" + f.srv.URL() + "\"\n")
	delete(f.env, "OLLAMA_HOST")
	f.srv.Script(ollamatest.Reply{Content: "From Ollama."})
	out, errOut := f.mustTern("ask", "hi")
	if out != "From Ollama.\n" || !strings.Contains(errOut, "using qwen3:8b") {
		t.Errorf("an Ollama at base_url: out %q\n%s", out, errOut)
	}

	f2, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.LMStudio))
	f2.env["OLLAMA_HOST"] = srv.URL()
	srv.Script(openaitest.Reply{Content: "From LM Studio."})
	out, _ = f2.mustTern("ask", "hi")
	if out != "From LM Studio.\n" {
		t.Errorf("an LM Studio at OLLAMA_HOST: out %q", out)
	}

	code, _, errOut := f2.tern(t.Context(), "ask", "--backend", "ollama", "hi")
	if code != 1 || !strings.Contains(errOut, "is not Ollama") || !strings.Contains(errOut, "--backend openai") {
		t.Errorf("--backend ollama at an LM Studio: exit %d: %s", code, errOut)
	}
	code, out, _ = f2.tern(t.Context(), "doctor", "--backend", "ollama")
	if code != 1 || !strings.Contains(out, "is not Ollama") || !strings.Contains(out, "pass --backend openai") || strings.Contains(out, "not reachable") {
		t.Errorf("doctor --backend ollama at an LM Studio: exit %d:\n%s", code, out)
	}
}

// TestOpenAIEmbedBaseURL: llama-server serves one model, so chat and
// embeddings often come from two servers; embed_base_url names the
// second, and tern index embeds there while chat stays on base_url.
func TestOpenAIEmbedBaseURL(t *testing.T) {
	t.Parallel()
	f, chat := newOpenAIFixture(t)
	embed := openaitest.New(t, openaitest.WithModel("nomic-embed-text-v1.5"), openaitest.WithEmbeddings("nomic-embed-text-v1.5", 48))
	f.config("backend = \"openai\"\nbase_url = \"" + chat.URL() + "\"\nembed_base_url = \"" + embed.URL() + "/v1\"\n")
	out, errOut := f.mustTern("index")
	if embed.Embeds() == 0 || chat.Embeds() != 0 || !strings.Contains(out, "embedded with nomic-embed-text") {
		t.Errorf("embeds: %d at embed_base_url, %d at base_url:\n%s\n%s", embed.Embeds(), chat.Embeds(), out, errOut)
	}
	out, _ = f.mustTern("search", "--json", "demo repository")
	if list := hits(t, out); len(list) == 0 || list[0].Path != "README.md" {
		t.Errorf("hits = %+v", list)
	}
	if chat.Embeds() != 0 {
		t.Errorf("the query was embedded at base_url")
	}
}

// TestOpenAIConstrainedToolMode: --tool-mode constrained holds each reply
// of an OpenAI-compatible server to the schema through response_format
// (llama-server and vLLM compile it to a grammar), with no tools sent.
func TestOpenAIConstrainedToolMode(t *testing.T) {
	t.Parallel()
	for _, flavor := range []openaitest.Flavor{openaitest.LlamaServer, openaitest.VLLM, openaitest.LMStudio} {
		t.Run(string(flavor), func(t *testing.T) {
			f, srv := newOpenAIFixture(t, openaitest.WithFlavor(flavor))
			srv.Script(
				openaitest.Reply{Content: `{"name": "list_dir", "arguments": {"path": "."}}`},
				openaitest.Reply{Content: `{"answer": "Three files."}`},
			)
			code, out, errOut := f.tern(t.Context(), "ask", "--host", srv.URL(), "--tool-mode", "constrained", "what files are here?")
			if code != 0 || out != "Three files.\n" {
				t.Fatalf("exit %d, out %q:\n%s", code, out, errOut)
			}
			if !strings.Contains(errOut, "replies held to a JSON schema (--tool-mode constrained)") || !strings.Contains(errOut, "✓ ") {
				t.Errorf("stderr:\n%s", errOut)
			}
			chats := srv.Chats()
			if len(chats) != 2 {
				t.Fatalf("%d chat requests", len(chats))
			}
			for _, r := range chats {
				if len(r.Tools) > 0 || r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" ||
					!strings.Contains(string(r.ResponseFormat.JSONSchema.Schema), `{"const":"list_dir"}`) {
					t.Fatalf("request not held to the schema: %d tools, response_format %+v", len(r.Tools), r.ResponseFormat)
				}
			}
		})
	}
}

// TestOpenAIWindowHintPerServer: a server that does not say its window
// (LM Studio with the model not loaded yet, a proxy in front of vLLM that
// drops max_model_len) stops tern with the fix for that server.
func TestOpenAIWindowHintPerServer(t *testing.T) {
	t.Parallel()
	for flavor, want := range map[openaitest.Flavor]string{
		openaitest.LlamaServer: "the -c/--ctx-size the server was started with",
		openaitest.LMStudio:    "load the model in LM Studio first (`lms load MODEL --context-length N`)",
		openaitest.VLLM:        "vLLM's --max-model-len",
	} {
		t.Run(string(flavor), func(t *testing.T) {
			f, srv := newOpenAIFixture(t, openaitest.WithFlavor(flavor), openaitest.WithHiddenWindow())
			code, _, errOut := f.tern(t.Context(), "ask", "--backend", "openai", "--host", srv.URL(), "hi")
			if code != 1 || !strings.Contains(errOut, "tern never guesses one: pass --ctx N") || !strings.Contains(errOut, want) {
				t.Errorf("exit %d: %s", code, errOut)
			}
			if len(srv.Chats()) != 0 {
				t.Errorf("a chat request went out with no known window")
			}
		})
	}
}

// TestOpenAIMessages: what the user reads when the OpenAI-compatible
// server does not serve what was asked: a wrong --model is named with
// the models served; of several models, doctor says which it took and
// that --model chooses another; a 404 (base_url with a wrong path) says
// what base_url must be.
func TestOpenAIMessages(t *testing.T) {
	t.Parallel()
	f, srv := newOpenAIFixture(t, openaitest.WithFlavor(openaitest.LMStudio), openaitest.WithModel("qwen/qwen3-8b"),
		openaitest.WithOtherModels("text-embedding-nomic-embed-text-v1.5", "google/gemma-3-4b", "meta/llama-3.1-8b",
			"microsoft/phi-4", "mistral/mistral-7b", "ibm/granite-3.3-8b", "qwen/qwen2.5-coder-7b"))

	code, _, errOut := f.tern(t.Context(), "ask", "--backend", "openai", "--host", srv.URL(), "--model", "phi4", "hi")
	if code != 1 || !strings.Contains(errOut, `model "phi4" is not served at `+srv.URL()+` (served: qwen/qwen3-8b, text-embedding-nomic-embed-text-v1.5, google/gemma-3-4b`) ||
		!strings.Contains(errOut, "pass --model with one of those") {
		t.Errorf("a wrong --model: exit %d: %s", code, errOut)
	}

	_, out, _ := f.tern(t.Context(), "doctor", "--host", srv.URL())
	if !strings.Contains(out, "Chat model  ✓ qwen/qwen3-8b (the chat model the server has loaded; --model chooses another)") {
		t.Errorf("doctor with eight models served:\n%s", out)
	}

	code, _, errOut = f.tern(t.Context(), "ask", "--backend", "openai", "--host", srv.URL()+"/api", "hi")
	for _, want := range []string{"the server at " + srv.URL() + "/api answered GET /v1/models with 404 Not Found",
		"must be the root address of a server that speaks the OpenAI API", "/v1 at the end is optional", "for Ollama pass --backend ollama"} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("a 404: exit %d, want %q: %s", code, want, errOut)
		}
	}
}
