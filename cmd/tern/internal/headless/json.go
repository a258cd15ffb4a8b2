package headless

import (
	"bufio"
	"io"

	"github.com/ternhq/tern/agent"
)

// JSONWriter prints one JSON object per event (agent.MarshalEvent's
// encoding), a line each.
type JSONWriter struct {
	w   *bufio.Writer
	err error
}

// NewJSON writes events to w.
func NewJSON(w io.Writer) *JSONWriter { return &JSONWriter{w: bufio.NewWriter(w)} }

// Write prints e on a line of its own. After the first error it writes
// nothing more.
func (j *JSONWriter) Write(e agent.Event) {
	if j.err != nil {
		return
	}
	b, err := agent.MarshalEvent(e)
	if err != nil {
		j.err = err
		return
	}
	j.w.Write(b)
	j.w.WriteByte('\n')
	// Flush per event so a reader sees tokens as they stream.
	j.err = j.w.Flush()
}

// Flush returns the first error met.
func (j *JSONWriter) Flush() error { return j.err }
