package models

import (
	"regexp"
	"strings"
	"unicode"
)

// A reply can quote call text instead of making a call: an answer that
// explains a format, a review that cites what a parser reads, a note on
// what went wrong. Call text is quoted when it sits
//
//   - in a fenced block of a programming language (```go, ```python …):
//     an example, never a call;
//   - in inline code inside a sentence ("it reads `<tool_call>` blocks"):
//     a mention, never a call;
//   - in a fenced block of a call language (```json, ```tool, a fence
//     with none) that prose follows: cited, so its calls count only if
//     they name an offered tool as it is named and fit its schema. A model
//     that calls may announce first ("Let me search:"), and even say what
//     comes next, but it does not quote a tool it was not given.

// quoting says where a reply quotes call text.
type quoting struct {
	code, inline, cited [][2]int
}

// inlineCode matches a stretch in single backticks on one line.
var inlineCode = regexp.MustCompile("`[^`\n]+`")

// proseWords matches a word of prose: two or more letters.
var proseWords = regexp.MustCompile(`\p{L}{2,}`)

// quotingOf finds the quoted stretches of text.
func quotingOf(text string) quoting {
	var q quoting
	fences := fence.FindAllStringSubmatchIndex(text, -1)
	proseAfter := proseAfterFences(text, fences)
	for i, m := range fences {
		lang := strings.ToLower(text[m[2]:m[3]])
		if !callFences[lang] {
			q.code = append(q.code, [2]int{m[0], m[1]})
			continue
		}
		if proseAfter[i] {
			q.cited = append(q.cited, [2]int{m[0], m[1]})
		}
	}
	if strings.IndexByte(text, '`') < 0 {
		return q
	}
	off, prev := 0, ""
	for _, line := range strings.SplitAfter(text, "\n") {
		start, before := off, prev
		off, prev = off+len(line), line
		if !strings.Contains(line, "`") || strings.Contains(line, "```") || q.inCode(start) {
			continue
		}
		spans := inlineCode.FindAllStringIndex(line, -1)
		outside := inlineCode.ReplaceAllString(line, " ")
		if len(spans) == 0 || !inSentence(outside, before) {
			continue
		}
		for _, s := range spans {
			if delimited(line, s[0], s[1]) {
				q.inline = append(q.inline, [2]int{start + s[0], start + s[1]})
			}
		}
	}
	return q
}

// inSentence reports whether a line holding inline code is prose: two
// words of its own outside the code, or one that goes on with the
// sentence of the line before it (a wrapped paragraph).
func inSentence(outside, before string) bool {
	words := len(proseWords.FindAllString(outside, 3))
	if words >= 2 {
		return true
	}
	before = strings.TrimSpace(before)
	return words == 1 && len(proseWords.FindAllString(before, 3)) >= 3 && !strings.HasSuffix(before, ":") && !strings.Contains(before, "```")
}

// delimited reports whether the backticks at line[a] and line[b-1] stand
// apart as inline code, not as a value's quotes inside a call
// (newString:`…`).
func delimited(line string, a, b int) bool {
	if a > 0 {
		c := rune(line[a-1])
		if !unicode.IsSpace(c) && !strings.ContainsRune("([\"'*_", c) {
			return false
		}
	}
	if b < len(line) {
		c := rune(line[b])
		if !unicode.IsSpace(c) && !strings.ContainsRune(".,;:!?)]\"'*_-", c) {
			return false
		}
	}
	return true
}

// proseAfterFences reports, for each fenced block, whether a sentence of
// prose follows it outside the fenced blocks that come after it: a line
// of three words in the text between two later blocks, or after the last.
// It reads each stretch between blocks once, from the end, so a reply of
// thousands of fences costs no more than its length.
func proseAfterFences(text string, fences [][]int) []bool {
	after := make([]bool, len(fences))
	prose := false
	for i := len(fences) - 1; i >= 0; i-- {
		end := len(text)
		if i+1 < len(fences) {
			end = fences[i+1][0]
		}
		prose = prose || proseLine(text[fences[i][1]:end])
		after[i] = prose
	}
	return after
}

// proseLine reports whether a line of s has three words of prose.
func proseLine(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if len(proseWords.FindAllString(line, 3)) >= 3 {
			return true
		}
	}
	return false
}

func within(spans [][2]int, pos int) bool {
	for _, s := range spans {
		if pos >= s[0] && pos < s[1] {
			return true
		}
	}
	return false
}

// inCode reports whether pos lies in a fenced block of code.
func (q quoting) inCode(pos int) bool { return within(q.code, pos) }

// example reports whether call text starting at pos is only shown: in a
// block of code, or inline code inside a sentence.
func (q quoting) example(pos int) bool { return within(q.code, pos) || within(q.inline, pos) }

// citedAt reports whether pos lies in a cited fenced block.
func (q quoting) citedAt(pos int) bool { return within(q.cited, pos) }
