package tools

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/ternhq/tern/context/budget"
)

// maxSpill caps the spill file of one command's output.
const maxSpill = 64 << 20

// outputSink collects a command's combined output. While the output is
// within limit it keeps all of it; past that it keeps the head and the tail
// in memory and streams the whole to a spill file, so a command that floods
// its output costs bounded memory.
type outputSink struct {
	limit      int
	buf        []byte // all output, until it passes limit
	head, tail []byte // once spilling: the first and the latest bytes
	total      int64
	lines      int64 // newlines seen
	spilling   bool
	open       func() (*os.File, string, error)
	spill      *os.File
	spillPath  string
	spillErr   error
	spillCut   bool // the spill file stopped at maxSpill
	spilled    int64
}

func newOutputSink(limit int, open func() (*os.File, string, error)) *outputSink {
	return &outputSink{limit: limit, open: open}
}

func (s *outputSink) headRoom() int { return s.limit * 6 / 10 }
func (s *outputSink) tailRoom() int { return s.limit - s.headRoom() }

// Write never fails, so the command is never stopped by its reader.
func (s *outputSink) Write(p []byte) (int, error) {
	s.total += int64(len(p))
	s.lines += int64(bytes.Count(p, []byte{'\n'}))
	if !s.spilling {
		s.buf = append(s.buf, p...)
		if len(s.buf) <= s.limit {
			return len(p), nil
		}
		s.spilling = true
		s.head = s.buf[:s.headRoom()]
		s.tail = append([]byte(nil), s.buf[s.headRoom():]...)
		s.buf = nil
		if s.spill, s.spillPath, s.spillErr = s.open(); s.spillErr == nil {
			s.toSpill(s.head)
			s.toSpill(s.tail)
		}
	} else {
		s.tail = append(s.tail, p...)
		if s.spill != nil {
			s.toSpill(p)
		}
	}
	if len(s.tail) > 2*s.tailRoom() {
		s.tail = append(s.tail[:0:0], s.tail[len(s.tail)-s.tailRoom():]...)
	}
	return len(p), nil
}

func (s *outputSink) toSpill(p []byte) {
	if s.spillCut {
		return
	}
	if room := maxSpill - s.spilled; int64(len(p)) > room {
		p, s.spillCut = p[:max(room, 0)], true
	}
	n, err := s.spill.Write(p)
	s.spilled += int64(n)
	if err != nil && s.spillErr == nil {
		s.spillErr = err
	}
}

// close closes the spill file.
func (s *outputSink) close() {
	if s.spill != nil {
		if err := s.spill.Close(); err != nil && s.spillErr == nil {
			s.spillErr = err
		}
	}
}

// text returns the output for the model: all of it, or the head and the
// tail around a marker, with where the whole was saved.
func (s *outputSink) text() string {
	if !s.spilling {
		return validText(s.buf)
	}
	head := s.head[:budget.HeadCut(string(s.head), len(s.head))]
	tail := s.tail[max(len(s.tail)-s.tailRoom(), 0):]
	tail = tail[budget.TailCut(string(tail), len(tail)):]
	omitted := s.total - int64(len(head)) - int64(len(tail))
	lines := s.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.WriteString(validText(head))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "… %d lines (%s) omitted …\n", lines, humanSize(omitted))
	b.WriteString(validText(tail))
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		b.WriteByte('\n')
	}
	switch {
	case s.spillErr != nil:
		fmt.Fprintf(&b, "(the full output, %s, could not be saved: %v)", humanSize(s.total), s.spillErr)
	case s.spillCut:
		fmt.Fprintf(&b, "(output: %s; the first %s are in %s; read it with read_file offset/limit)", humanSize(s.total), humanSize(maxSpill), s.spillPath)
	default:
		fmt.Fprintf(&b, "(full output, %s: %s; read it with read_file offset/limit)", humanSize(s.total), s.spillPath)
	}
	return b.String()
}
