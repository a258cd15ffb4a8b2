package ollamatest

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/ollama/ollama/api"
)

// The fake's hostile behaviours: a server that never answers, a stream
// that never ends or falls silent, and tool calls whose arguments are not
// an object. Clients must survive each with a clear message.

// hang keeps a request open, writing nothing, until the client goes away
// or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
	}
}

// hold waits until release is closed, and reports whether the stream
// goes on: false once the client has gone or the server is closing.
func (s *Server) hold(r *http.Request, release <-chan struct{}) bool {
	select {
	case <-release:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

// endless streams content after the scripted chunks until the client
// goes away, with no done line: a server ignoring num_predict.
func (s *Server) endless(r *http.Request, reply Reply, model string, emit func(any)) {
	delay := max(reply.ChunkDelay, time.Millisecond)
	for i := 0; ; i++ {
		if !s.wait(r, delay) {
			return
		}
		emit(api.ChatResponse{Model: model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant", Content: " again" + strconv.Itoa(i%10)}})
	}
}

// rawArgsMark stands in a chunk for arguments the api types cannot hold;
// withRawArgs puts the raw text in its place on the wire.
const rawArgsMark = "ollamatest_raw_args"

func rawArgsCall(i int, c Call) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	args.Set(rawArgsMark, i)
	return api.ToolCall{ID: callID(), Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args}}
}

// withRawArgs replaces the marks of raw-argument calls in a marshalled
// chunk with the scripted raw arguments.
func withRawArgs(data []byte, calls []Call) []byte {
	for i, c := range calls {
		if c.RawArgs == "" {
			continue
		}
		mark := []byte(`{"` + rawArgsMark + `":` + strconv.Itoa(i) + `}`)
		data = bytes.ReplaceAll(data, mark, []byte(c.RawArgs))
	}
	return data
}
