package eval

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// replayWindow is the window of the fake llama-server replays play
// against: what `llama-server -c 16384` serves.
const replayWindow = 16384

// Replayer is a fake server a replay plays against.
type Replayer interface {
	URL() string
	Close()
}

// ReplayServer starts the fake server that plays t's recorded transcript
// with the model the task names, and returns it with the model's name:
// a fake Ollama, or with openAI a fake llama-server, which streams the
// same replies as OpenAI-compatible deltas (and offers no native tools
// when the model has none, as llama-server without --jinja).
func ReplayServer(t Task, openAI bool) (Replayer, string, error) {
	m, err := ollamatest.Preset(t.Replay.Model)
	if err != nil {
		return nil, "", fmt.Errorf("task %s: %w", t.Name, err)
	}
	replies, err := t.Transcript()
	if err != nil {
		return nil, "", err
	}
	if !openAI {
		srv := ollamatest.NewServer(ollamatest.WithModels(m))
		srv.Script(replies...)
		return srv, m.Name, nil
	}
	opts := []openaitest.Option{openaitest.WithModel(m.Name), openaitest.WithWindow(replayWindow)}
	if !slices.Contains(m.Capabilities, "tools") {
		opts = append(opts, openaitest.WithoutTools()) // llama-server without --jinja
	}
	srv := openaitest.NewServer(opts...)
	for _, r := range replies {
		srv.Script(openAIReply(r))
	}
	return srv, m.Name, nil
}

// openAIReply is an Ollama transcript reply as an OpenAI-compatible server
// would stream it.
func openAIReply(r ollamatest.Reply) openaitest.Reply {
	out := openaitest.Reply{
		Content: r.Content, Thinking: r.Thinking, Chunks: r.Chunks, ChunkDelay: r.ChunkDelay,
		Status: r.Status, Error: r.Error, StreamError: r.StreamError, DropAfter: r.DropAfter,
		FinishReason: r.DoneReason, PromptTokens: r.PromptEvalCount,
	}
	for _, c := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, openaitest.Call{Name: c.Name, Args: c.Args})
	}
	return out
}

// IsolatedEnv is the environment of a replay in the throw-away directory
// tmp: it keeps the user's config and environment out, so that a replay
// plays the same everywhere. HOME and XDG_CONFIG_HOME are tmp/home; only
// PATH comes from getenv.
func IsolatedEnv(tmp string, getenv func(string) string) func(string) string {
	return func(key string) string {
		switch key {
		case "XDG_CONFIG_HOME", "HOME":
			return filepath.Join(tmp, "home")
		case "PATH":
			return getenv("PATH")
		}
		return ""
	}
}
