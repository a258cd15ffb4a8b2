package openai

import "strings"

const (
	openThink  = "<think>"
	closeThink = "</think>"
)

// inlineThink takes out of a reply's content the reasoning a server left
// in it, between <think> and </think> at its start: servers that do not
// separate reasoning into reasoning_content write it so (LM Studio with
// "separate reasoning_content" off, llama-server with --reasoning-format
// none, vLLM without --reasoning-parser). Content is fed in the pieces it
// streams in; a piece that might be the start of a tag is held until the
// next tells.
type inlineThink struct {
	state thinkState
	held  string
}

type thinkState int

const (
	undecided thinkState = iota // only blanks, or a start of "<think>", so far
	inside                      // after "<think>", before "</think>"
	after                       // after "</think>": blanks before the answer are dropped
	plain                       // the rest is the answer
)

// split returns what of piece is thinking and what is content.
func (t *inlineThink) split(piece string) (thinking, content string) {
	switch t.state {
	case plain:
		return "", piece
	case after:
		content = strings.TrimLeft(piece, " \t\r\n")
		if content != "" {
			t.state = plain
		}
		return "", content
	}
	t.held += piece
	if t.state == undecided {
		s := strings.TrimLeft(t.held, " \t\r\n")
		switch {
		case strings.HasPrefix(s, openThink):
			t.state, t.held = inside, s[len(openThink):]
		case strings.HasPrefix(openThink, s):
			return "", "" // blanks, or "<thi": wait for more
		default:
			t.state, content, t.held = plain, t.held, ""
			return "", content
		}
	}
	if i := strings.Index(t.held, closeThink); i >= 0 {
		thinking, rest := t.held[:i], t.held[i+len(closeThink):]
		t.state, t.held = after, ""
		_, content = t.split(rest)
		return thinking, content
	}
	// Hold back what may be the start of "</think>".
	keep := 0
	for n := min(len(closeThink)-1, len(t.held)); n > 0; n-- {
		if strings.HasSuffix(t.held, closeThink[:n]) {
			keep = n
			break
		}
	}
	thinking, t.held = t.held[:len(t.held)-keep], t.held[len(t.held)-keep:]
	return thinking, ""
}

// flush returns what is held when the reply ends: the thinking of a reply
// cut before "</think>", or content that only looked like a tag's start.
func (t *inlineThink) flush() (thinking, content string) {
	held := t.held
	t.held = ""
	if t.state == inside {
		return held, ""
	}
	return "", held
}

// closedOnly splits a reply whose content holds a "</think>" with no
// "<think>" before it, as models whose template opens the block in the
// prompt write it: what comes before is thinking. ok is false otherwise.
func closedOnly(content string) (thinking, answer string, ok bool) {
	before, after, found := strings.Cut(content, closeThink)
	if !found || strings.Contains(before, openThink) {
		return "", content, false
	}
	return before, strings.TrimLeft(after, " \t\r\n"), true
}
