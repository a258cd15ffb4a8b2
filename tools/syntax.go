package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ternhq/tern/index/grammar"
)

// maxSyntaxErrors bounds the syntax errors one parse reports: past a few,
// tree-sitter's recovery reports the same mistake again and again.
const maxSyntaxErrors = 20

// syntaxErrors parses text, the content of the file rel, with the
// tree-sitter grammar of its language and returns where it does not
// parse, each with its line as Excerpt. ok is false for a language
// without a grammar.
func syntaxErrors(rel, text string) (errs []Diagnostic, ok bool) {
	g := grammar.ForPath(rel)
	if g == nil {
		return nil, false
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g.Language())
	src := []byte(text)
	// Not cancellable: go-tree-sitter's cancellation can fail a later,
	// unrelated parse (see index/chunk.go); a file is at most a MiB.
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return nil, false
	}
	defer tree.Close()
	lines := lineSource(text)
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if len(errs) == maxSyntaxErrors || !n.HasError() {
			return
		}
		if n.IsMissing() || n.IsError() {
			row, col := place(src, n)
			line := lines(row + 1)
			col = min(col, len(line))
			errs = append(errs, Diagnostic{Path: rel, Line: row + 1, Col: utf8.RuneCountInString(line[:col]) + 1,
				Severity: "error", Message: syntaxMessage(n), Source: "syntax", Excerpt: excerpt([]byte(line), col)})
			return
		}
		for i := range int(n.ChildCount()) {
			walk(n.Child(i))
		}
	}
	walk(tree.RootNode())
	return errs, true
}

// place is where to report n: its start, but for a missing token, the end
// of the code before it: a "}" missing at the end of the file belongs
// after the last line, not on the empty line after it.
func place(src []byte, n *sitter.Node) (row, col int) {
	if !n.IsMissing() {
		p := n.StartPoint()
		return int(p.Row), int(p.Column)
	}
	off := min(int(n.StartByte()), len(src))
	for off > 0 && strings.ContainsRune(" \t\r\n", rune(src[off-1])) {
		off--
	}
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return bytes.Count(src[:off], []byte("\n")), off - start
}

// syntaxMessage says what is wrong at n, a MISSING or ERROR node.
func syntaxMessage(n *sitter.Node) string {
	if n.IsMissing() {
		if n.IsNamed() {
			return "syntax error: missing " + strings.ReplaceAll(n.Type(), "_", " ")
		}
		return fmt.Sprintf("syntax error: missing %q", n.Type())
	}
	// tree-sitter's recovery wraps what it cannot parse, which starts
	// where the mistake is or before it; which token is wrong it does not
	// say well enough to repeat.
	// (No line numbers in the message: an edit above would change it,
	// and the error would look new.)
	if start, end := n.StartPoint().Row, n.EndPoint().Row; end > start {
		return fmt.Sprintf("syntax error in the %d lines from here", end-start+1)
	}
	return "syntax error"
}
