package ollamatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Reply is one scripted answer to /api/chat.
type Reply struct {
	Content  string
	Thinking string // streamed in the thinking field when thinking is on, dropped when off
	// ToolCalls come back as structured tool_calls when the request offered
	// tools, each with a generated "call_…" id, one call per chunk. Without
	// tools in the request they are written into the content as
	// <tool_call>{…}</tool_call> text, as a model does when the template
	// does not turn its calls into structure.
	ToolCalls []Call

	// Chunks, when set, is the content in explicit pieces (Content is then
	// ignored); by default Content and Thinking are split into small
	// word-like pieces.
	Chunks     []string
	ChunkDelay time.Duration // pause before each chunk
	// HoldAfter > 0 stops after that many chunks until Release is closed
	// (or the client gives up), then streams the rest: a test that must
	// see a reply in progress waits for what it checks, then lets the
	// reply end, instead of streaming it slowly enough to be seen.
	HoldAfter int
	Release   <-chan struct{}

	// Status, when non-zero, answers with that HTTP status and the body
	// {"error": Error}, like the real server's refusals.
	Status int
	Error  string
	// StreamError ends the stream with an {"error":…} line after the chunks
	// and no done line. If no chunk was written yet the real server answers
	// HTTP 500 instead, and so does the fake.
	StreamError string
	// DropAfter > 0 closes the connection after that many chunks without a
	// done line, as when the runner crashes; < 0 closes it before the first.
	DropAfter int
	// MalformedLine writes one line that is not JSON halfway through.
	MalformedLine bool

	DoneReason      string // default "stop"
	PromptEvalCount int    // overrides the computed prompt_eval_count

	// Hostile servers (see hostile.go).
	//
	// NoHeaders never answers: no status, no headers, until the client
	// gives up.
	NoHeaders bool
	// Endless streams the chunks, then more content forever, never done.
	Endless bool
	// StallAfter > 0 stops writing after that many chunks but keeps the
	// connection open, silent, until the client gives up.
	StallAfter int
}

// Call is a scripted tool call.
type Call struct {
	Name string
	// Args is a raw JSON object; its key order is kept on the wire.
	Args string
	// RawArgs, when set, is sent verbatim as the call's arguments instead
	// of Args: a JSON string, number or list, as broken models send.
	RawArgs string
	// ID, when set, is sent as the call's id instead of a fresh one: a
	// server that repeats ids ("call_0" in every reply).
	ID string
}

// LoadScript reads replies from a JSON array or from NDJSON (one reply
// object a line). The keys are snake_case ("tool_calls", "stream_error",
// "drop_after", …); a call's "args" may be an object or a string holding
// one, and "chunk_delay" is a duration such as "20ms".
func LoadScript(path string) ([]Reply, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	replies, err := parseScript(data)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	return replies, nil
}

type scriptReply struct {
	Content         string       `json:"content"`
	Thinking        string       `json:"thinking"`
	ToolCalls       []scriptCall `json:"tool_calls"`
	Chunks          []string     `json:"chunks"`
	ChunkDelay      string       `json:"chunk_delay"`
	Status          int          `json:"status"`
	Error           string       `json:"error"`
	StreamError     string       `json:"stream_error"`
	DropAfter       int          `json:"drop_after"`
	MalformedLine   bool         `json:"malformed_line"`
	DoneReason      string       `json:"done_reason"`
	PromptEvalCount int          `json:"prompt_eval_count"`
	NoHeaders       bool         `json:"no_headers"`
	Endless         bool         `json:"endless"`
	StallAfter      int          `json:"stall_after"`
}

type scriptCall struct {
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	RawArgs json.RawMessage `json:"raw_args"`
}

func parseScript(data []byte) ([]Reply, error) {
	var raw []scriptReply
	data = bytes.TrimSpace(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt key would silently script nothing
	if bytes.HasPrefix(data, []byte("[")) {
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
	} else {
		for {
			var r scriptReply
			err := dec.Decode(&r)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("reply %d: %w", len(raw)+1, err)
			}
			raw = append(raw, r)
		}
	}
	replies := make([]Reply, len(raw))
	for i, r := range raw {
		rep := Reply{
			Content: r.Content, Thinking: r.Thinking, Chunks: r.Chunks,
			Status: r.Status, Error: r.Error, StreamError: r.StreamError,
			DropAfter: r.DropAfter, MalformedLine: r.MalformedLine,
			DoneReason: r.DoneReason, PromptEvalCount: r.PromptEvalCount,
			NoHeaders: r.NoHeaders, Endless: r.Endless, StallAfter: r.StallAfter,
		}
		if r.ChunkDelay != "" {
			d, err := time.ParseDuration(r.ChunkDelay)
			if err != nil {
				return nil, fmt.Errorf("reply %d: chunk_delay: %w", i+1, err)
			}
			rep.ChunkDelay = d
		}
		for _, c := range r.ToolCalls {
			args, err := callArgs(c.Args)
			if err != nil {
				return nil, fmt.Errorf("reply %d: tool call %s: %w", i+1, c.Name, err)
			}
			rep.ToolCalls = append(rep.ToolCalls, Call{Name: c.Name, Args: args, RawArgs: string(c.RawArgs)})
		}
		replies[i] = rep
	}
	return replies, nil
}

// callArgs accepts {"path":"."} or "{\"path\":\".\"}" and returns the
// compacted object text with its key order unchanged.
func callArgs(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", fmt.Errorf("args: %w", err)
	}
	return b.String(), nil
}
