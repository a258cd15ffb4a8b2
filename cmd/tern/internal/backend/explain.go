package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// Explain turns an Ollama error into one the user can act on: what to
// run or change. host is the server asked, model the model named, and
// installed the models the server has, for the message.
func Explain(err error, host, model string, installed []models.ModelInfo) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, models.ErrUnreachable):
		return fmt.Errorf("cannot reach Ollama at %s: start it with `ollama serve` (or open the Ollama app), or point --host / OLLAMA_HOST at a running server", host)
	case errors.Is(err, models.ErrNoAnswer):
		return explainSilent(err, "Ollama", "or point --host / OLLAMA_HOST at Ollama's own port (`ollama serve`, or the Ollama app, starts it)")
	case errors.Is(err, models.ErrNoChatModel):
		return fmt.Errorf("no chat model is installed in Ollama at %s: run `ollama pull qwen3:8b` (or another model with tool support)", host)
	case errors.Is(err, models.ErrModelNotFound):
		names := make([]string, len(installed))
		for i, m := range installed {
			names[i] = m.Name
		}
		have := "none"
		if len(names) > 0 {
			have = strings.Join(names, ", ")
		}
		return fmt.Errorf("model %q is not installed: run `ollama pull %s` (installed: %s)", model, model, have)
	case errors.Is(err, models.ErrBusy):
		return fmt.Errorf("%w: Ollama at %s is serving other requests; run again when it is free, or let it take more (OLLAMA_NUM_PARALLEL, OLLAMA_MAX_QUEUE where Ollama runs)", err, host)
	case errors.Is(err, models.ErrRunnerCrashed):
		return fmt.Errorf("%w. %s", err, serverLogHint+"; a model that does not fit crashes so: try a smaller --ctx or model, or pull the model again if its file is damaged")
	case errors.Is(err, models.ErrIncomplete):
		return fmt.Errorf("%w: Ollama closed the connection before the reply was complete; run again (tern ask --resume continues the session). %s", err, serverLogHint)
	}
	var se api.StatusError
	if errors.As(err, &se) && se.StatusCode >= 500 {
		return fmt.Errorf("%w: an error inside Ollama, not tern's. %s; `tern doctor` checks the model and its window", err, serverLogHint)
	}
	return err
}

// explainSilent words a server that took the connection and answered
// nothing within stream.contact_timeout: which address did not answer,
// and what to check. who names the server; fix says what else to do.
func explainSilent(err error, who, fix string) error {
	var na *models.NoAnswerError
	if !errors.As(err, &na) {
		return err
	}
	return Worded{Err: err, Msg: fmt.Sprintf("%s at %s took the connection but did not answer %s within %s: check that it is the model server and that it works (restart it if it is stuck), %s; stream.contact_timeout in the config sets the limit",
		who, na.Host, na.What, na.After, fix)}
}

// ExplainSilent words a server that did not answer the questions that
// tell Ollama from an OpenAI-compatible server.
func ExplainSilent(err error) error {
	return explainSilent(err, "the server", "or point --host / OLLAMA_HOST (base_url for an OpenAI-compatible server) at the model server's own port")
}

// Worded is an error in the user's words: Msg says it, Err is what
// callers branch on (errors.Is).
type Worded struct {
	Err error
	Msg string
}

func (e Worded) Error() string { return e.Msg }
func (e Worded) Unwrap() error { return e.Err }

// serverLogHint says where Ollama explains its failures.
const serverLogHint = "Ollama's server log says why (`journalctl -u ollama` on Linux, ~/.ollama/logs/server.log on macOS, or the terminal running `ollama serve`)"

// ServedWindow is the session's window: the server's, or less when --ctx
// asks for less; --ctx only when the server does not say. It is never a
// guess.
func ServedWindow(srv openai.Server, ctxFlag int, host string) (ollama.Plan, error) {
	switch {
	case srv.Kind == openai.Ollama:
		// Not even with --ctx: Ollama's /v1 ignores num_ctx and cuts a
		// longer prompt at its own default window, silently.
		return ollama.Plan{}, fmt.Errorf("the server at %s is %s: its OpenAI-compatible API ignores the window tern plans and cuts longer prompts at its own, so tern speaks Ollama's native API to it: drop --backend openai (backend = \"auto\" or \"ollama\")", host, srv)
	case srv.Window > 0 && ctxFlag > 0 && ctxFlag < srv.Window:
		return ollama.Plan{NumCtx: ctxFlag, Source: fmt.Sprintf("--ctx; the server serves %d (%s)", srv.Window, srv.WindowSource)}, nil
	case srv.Window > 0:
		p := ollama.Plan{NumCtx: srv.Window, Source: srv.WindowSource}
		if ctxFlag > srv.Window {
			p.Source += fmt.Sprintf("; --ctx %d is more than the server serves", ctxFlag)
		}
		return p, nil
	case ctxFlag > 0:
		return ollama.Plan{NumCtx: ctxFlag, Source: "--ctx (the server does not say its window)"}, nil
	}
	hint := "the -c/--ctx-size the server was started with"
	switch srv.Kind {
	case openai.LMStudio:
		hint = "the context length LM Studio loads it with (`lms load MODEL --context-length N`)"
		if !srv.Loaded {
			hint = "load the model in LM Studio first (`lms load MODEL --context-length N`), or pass the context length it will load with"
		}
	case openai.VLLM:
		hint = "vLLM's --max-model-len"
	}
	return ollama.Plan{}, fmt.Errorf("%s at %s does not say its context window, and tern never guesses one: pass --ctx N (%s)", srv.Kind, host, hint)
}

// ToolsFix says how to switch native tool calls on.
func ToolsFix(kind openai.Kind) string {
	switch kind {
	case openai.LlamaServer:
		return "Start llama-server with --jinja for native tool calls."
	case openai.VLLM:
		return "Start vLLM with --enable-auto-tool-choice --tool-call-parser NAME for native tool calls."
	}
	return "Enable tool calling on the server for native tool calls."
}

// ExplainOpenAI words an OpenAI-compatible server's errors for the user.
func ExplainOpenAI(err error, host, model string, installed []models.ModelInfo) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, models.ErrUnreachable):
		return fmt.Errorf("cannot reach the OpenAI-compatible server at %s: start it (e.g. `llama-server -m MODEL.gguf --jinja -c 16384`) or fix base_url / --host", host)
	case errors.Is(err, models.ErrNoAnswer):
		return explainSilent(err, "the OpenAI-compatible server", "or point base_url / --host at the model server's own port")
	case errors.Is(err, openai.ErrLoading):
		return Worded{Err: err, Msg: fmt.Sprintf("the server at %s is still loading its model: run again once it has (llama-server's %s/health answers {\"status\":\"ok\"} then)", host, host)}
	case errors.Is(err, openai.ErrUnauthorized):
		return fmt.Errorf("the server at %s refused the API key: set TERN_API_KEY (or OPENAI_API_KEY) to the key it was started with", host)
	case errors.Is(err, models.ErrNoChatModel):
		return fmt.Errorf("the server at %s serves no chat model", host)
	case errors.Is(err, models.ErrModelNotFound):
		names := make([]string, len(installed))
		for i, m := range installed {
			names[i] = m.Name
		}
		return fmt.Errorf("model %q is not served at %s (served: %s): pass --model with one of those", model, host, cmp.Or(strings.Join(names, ", "), "none"))
	}
	var se *openai.ServerError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		what := "the server at " + host + " answered"
		if se.Request != "" {
			what += " " + se.Request
		}
		return Worded{Err: err, Msg: fmt.Sprintf("%s with 404 Not Found (%s): base_url (or --host) must be the root address of a server that speaks the OpenAI API, such as http://127.0.0.1:8080 for llama-server, http://127.0.0.1:1234 for LM Studio or http://127.0.0.1:8000 for vLLM (/v1 at the end is optional); for Ollama pass --backend ollama",
			what, se.Message)}
	}
	return err
}

// ServedModel is what tern knows of a model an OpenAI-compatible server
// lists: its name.
func ServedModel(name string) models.ModelInfo { return models.ModelInfo{Name: name} }
