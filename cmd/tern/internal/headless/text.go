package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/words"
)

// TextWriter streams the answer to stdout and everything else, briefly, to
// stderr.
type TextWriter struct {
	out, diag io.Writer
	verbose   bool
	// atLineStart tracks stdout, so the answer ends with a newline.
	atLineStart bool
	thinking    bool
}

// NewText writes the answer to out and tool calls and notices to diag;
// verbose adds the model's thinking and a closing line of counts.
func NewText(out, diag io.Writer, verbose bool) *TextWriter {
	return &TextWriter{out: out, diag: diag, verbose: verbose, atLineStart: true}
}

// Write renders e.
func (t *TextWriter) Write(e agent.Event) {
	switch e := e.(type) {
	case agent.Token:
		t.endThinking()
		fmt.Fprint(t.out, e.Text)
		t.atLineStart = strings.HasSuffix(e.Text, "\n")
	case agent.Thinking:
		if t.verbose {
			if !t.thinking {
				fmt.Fprint(t.diag, "thinking: ")
				t.thinking = true
			}
			fmt.Fprint(t.diag, e.Text)
		}
	case agent.ToolStart:
		t.endThinking()
		t.newline()
		fmt.Fprintf(t.diag, "▸ %s %s\n", e.Name, compactArgs(e.Args))
	case agent.ToolEnd:
		mark := "✓"
		if e.IsError {
			mark = "✗"
		}
		line := e.Summary
		if e.IsError {
			line = words.FirstLine(e.Output, 160)
		}
		if p := e.Problems(); p != "" {
			line += " · " + p
		}
		fmt.Fprintf(t.diag, "  %s %s\n", mark, line)
	case agent.Notice:
		t.newline()
		fmt.Fprintf(t.diag, "tern: %s\n", e.Text)
	case agent.Message:
		// The answer was already streamed as tokens.
	case agent.Done:
		t.endThinking()
		t.newline()
		if t.verbose {
			fmt.Fprintf(t.diag, "tern: %s · %s\n", e.Reason, e.Summary())
		}
	}
}

func (t *TextWriter) endThinking() {
	if t.thinking {
		fmt.Fprintln(t.diag)
		t.thinking = false
	}
}

func (t *TextWriter) newline() {
	if !t.atLineStart {
		fmt.Fprintln(t.out)
		t.atLineStart = true
	}
}

// Flush has nothing to flush: text is written as it comes.
func (t *TextWriter) Flush() error { return nil }

// compactArgs renders call arguments on one short line.
func compactArgs(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return ""
	}
	s := string(args)
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}
