package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ternhq/tern/models"
)

// callSet assembles streamed tool-call pieces into whole calls.
type callSet struct {
	calls []*partialCall
}

type partialCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
	// whole is set when the server sent the arguments as an object.
	whole json.RawMessage
}

func (s *callSet) add(d callDelta) {
	var p *partialCall
	switch {
	case d.Index != nil:
		for _, c := range s.calls {
			if c.index == *d.Index {
				p = c
			}
		}
	case len(s.calls) > 0 && (d.ID == "" || d.ID == s.calls[len(s.calls)-1].id):
		// No index: a piece without a new id continues the last call.
		p = s.calls[len(s.calls)-1]
	}
	if p == nil {
		idx := len(s.calls)
		if d.Index != nil {
			idx = *d.Index
		}
		p = &partialCall{index: idx}
		s.calls = append(s.calls, p)
	}
	if d.ID != "" {
		p.id = d.ID
	}
	if d.Function.Name != "" {
		p.name += d.Function.Name
	}
	a := bytes.TrimSpace(d.Function.Arguments)
	switch {
	case len(a) == 0 || string(a) == "null":
	case a[0] == '"':
		var piece string
		if json.Unmarshal(a, &piece) == nil {
			p.args.WriteString(piece)
		}
	default:
		p.whole = append(json.RawMessage(nil), a...)
	}
}

// whole returns the calls in index order. Arguments that are not valid
// JSON are kept as a JSON string holding the text, so that the repair
// pipeline and the argument check can tell the model what is wrong.
func (s *callSet) whole(newID func() string) []models.ToolCall {
	if len(s.calls) == 0 {
		return nil
	}
	slices.SortStableFunc(s.calls, func(a, b *partialCall) int { return a.index - b.index })
	out := make([]models.ToolCall, 0, len(s.calls))
	for _, p := range s.calls {
		args := p.whole
		if args == nil {
			text := strings.TrimSpace(p.args.String())
			switch {
			case text == "":
				args = json.RawMessage(`{}`)
			case json.Valid([]byte(text)):
				args = json.RawMessage(text)
			default:
				quoted, _ := json.Marshal(text)
				args = quoted
			}
		}
		id := p.id
		if id == "" {
			id = newID()
		}
		out = append(out, models.ToolCall{ID: id, Name: p.name, Arguments: args})
	}
	return out
}

// stream reads server-sent events: the data of each "data:" line, nil
// for "[DONE]". Comment lines (pings) and other fields are skipped; an
// "error:" line, which some llama-server builds send, is returned as data.
type stream struct {
	r *bufio.Reader
}

// errNoHeaders is the cause a request is cut for when the server sends no
// response headers in time.
var errNoHeaders = errors.New("no response headers")

// errIdle is the cause a probe's stream is cut for when it falls silent.
var errIdle = errors.New("stream idle")

// deltaSize is the text one streamed piece adds to a reply.
func deltaSize(d delta) int {
	n := 0
	for _, p := range []*string{d.Content, d.ReasoningContent, d.Reasoning} {
		if p != nil {
			n += len(*p)
		}
	}
	for _, tc := range d.ToolCalls {
		n += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return n
}

func newStream(r io.Reader) *stream { return &stream{r: bufio.NewReaderSize(r, 64<<10)} }

func (s *stream) next() ([]byte, error) {
	for {
		line, err := s.line()
		if len(line) == 0 && err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		field, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(field) == 0 {
			if err != nil {
				return nil, err
			}
			continue // blank line or a comment (": ping")
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if string(bytes.TrimSpace(value)) == "[DONE]" {
				return nil, nil
			}
			if len(bytes.TrimSpace(value)) == 0 {
				continue
			}
			return value, nil
		case "error":
			return append([]byte(`{"error":`), append(value, '}')...), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// line reads one line, refusing lines longer than MaxLineBytes.
func (s *stream) line() ([]byte, error) {
	var buf []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		buf = append(buf, frag...)
		if len(buf) > MaxLineBytes {
			return nil, fmt.Errorf("a stream line is longer than %d bytes", MaxLineBytes)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}
