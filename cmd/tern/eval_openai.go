package main

import (
	"fmt"
	"slices"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/eval"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// replayWindow is the window of the fake llama-server replays play
// against: what `llama-server -c 16384` serves.
const replayWindow = 16384

// replayer is a fake server a replay plays against.
type replayer interface {
	URL() string
	Close()
}

// replayServerFor is the fake server of a replay: Ollama, or llama-server
// with --backend openai.
func replayServerFor(backend string, t eval.Task) (replayer, string, error) {
	if backend != config.BackendOpenAI {
		return replayServer(t)
	}
	m, err := ollamatest.Preset(t.Replay.Model)
	if err != nil {
		return nil, "", fmt.Errorf("task %s: %w", t.Name, err)
	}
	replies, err := t.Transcript()
	if err != nil {
		return nil, "", err
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
