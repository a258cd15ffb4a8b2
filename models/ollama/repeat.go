package ollama

import (
	"strings"

	"github.com/ollama/ollama/api"
)

// Ollama v0.17.4 watches the tokens a model produces and, once the same
// token has come more than 30 times in a row, stops the prediction without
// an error (llm/server.go: "prediction aborted, token repeat limit
// reached"). The reply stream then ends with HTTP 200 and no final "done"
// line, exactly as a dropped connection looks through the api package. A
// long run of one repeated piece at the end of such a stream tells the two
// apart: the model was looping, nothing crashed.

// repeatRun is how many identical pieces in a row at the end of a stream
// without a final line count as the server's repetition stop. Ollama stops
// after 31 identical tokens; the margin allows for pieces its chat handler
// merged or held back while parsing.
const repeatRun = 24

// repeatWatch counts the trailing run of identical streamed pieces, the
// way Ollama's check compares tokens: whitespace trimmed.
type repeatWatch struct {
	last string
	run  int
}

// see takes one streamed chunk. Chunks that carry only tool calls or
// nothing at all are not tokens of text and leave the count alone.
func (w *repeatWatch) see(r api.ChatResponse) {
	piece := r.Message.Content + r.Message.Thinking
	if piece == "" {
		return
	}
	t := strings.TrimSpace(piece)
	if w.run > 0 && t == w.last {
		w.run++
		return
	}
	w.last, w.run = t, 1
}

// looped reports whether the stream ended in a run long enough to be the
// server's repetition stop.
func (w *repeatWatch) looped() bool { return w.run >= repeatRun }
