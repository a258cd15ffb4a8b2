package index

import (
	"bytes"
	"regexp"
	"strings"
)

// Languages without a grammar here still declare their functions and types
// in a few recognisable ways. declPatterns find those lines, in the manner
// of ctags, so that the windows of such a file end before a declaration
// and are named after one: the name is what a query names most often, and
// it weighs most in search.
var declPatterns = []struct {
	re *regexp.Regexp
	// kind is the piece's kind; empty takes it from the keyword matched.
	kind string
}{
	// A keyword, after modifiers and annotations: func, fun, def, fn,
	// function, sub, proc, class, struct, interface, trait, module, …
	// Go's receiver, "(r *T)", may stand between func and the name.
	{regexp.MustCompile(`^\s*(?:(?:public|private|protected|internal|static|final|abstract|override|open|sealed|data|inline|suspend|async|export|default|virtual|extern|unsafe|partial|local|pub(?:\([a-z]+\))?|fileprivate|mutating|@\w+(?:\([^)]*\))?)\s+)*` +
		`(func|function!?|fun|def|defp|defmodule|defmacro|fn|sub|proc|method|macro|class|struct|interface|enum|trait|object|protocol|extension|impl|module|type|record|namespace|actor|contract|member)` +
		`\s+(?:\([^)]*\)\s*)?(?:<[^>]*>\s*)?([A-Za-z_$][\w$]*(?:<[^>]*>)?(?:[.:][A-Za-z_$][\w$]*)*[!?]?)`), ""},
	// ML's top-level bindings: let name, let rec name.
	{regexp.MustCompile(`^(let)\s+(?:rec\s+)?([a-z_][\w']*)`), ""},
	// Haskell's type signatures and Erlang's clauses, at the margin.
	{regexp.MustCompile(`^()([a-z_][\w']*)\s*::`), "function"},
	{regexp.MustCompile(`^()([a-z]\w*)\(.*\)\s*(?:when\s.*)?->`), "function"},
	// Lisps: (defn name …), (defun name …), (define (name …) …).
	{regexp.MustCompile(`^\((defn-?|defun|defmacro|defprotocol|defrecord|deftype|defmulti|defmethod|define)\s+\(?([^\s()]+)`), "function"},
	// C#, Java-like and Dart methods: modifiers, a type, then name(.
	{regexp.MustCompile(`^\s*(?:(?:public|private|protected|internal|static|final|abstract|override|virtual|async|sealed|extern|unsafe|partial|new|readonly|synchronized)\s+)+(?:[\w<>\[\],.?]+\s+)+()([A-Za-z_]\w*)\s*\(`), "method"},
	// JavaScript-like functions held in a constant: const f = (…) => …
	{regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+()([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`), "function"},
	// R: name <- function(…).
	{regexp.MustCompile(`^()([\w.]+)\s*(?:<-|=)\s*function\b`), "function"},
}

// declKinds maps declaration keywords to the kinds tree-sitter's chunks
// use.
var declKinds = map[string]string{
	"func": "function", "function": "function", "function!": "function", "fun": "function", "def": "function",
	"defp": "function", "fn": "function", "sub": "function", "proc": "function", "macro": "function",
	"defmacro": "function", "method": "method", "member": "method", "defmodule": "module",
	"protocol": "interface", "record": "struct", "actor": "class", "contract": "class", "object": "class",
}

// containerKinds' names prefix the names of the declarations nested in
// them.
var containerKinds = map[string]bool{"class": true, "struct": true, "interface": true, "trait": true,
	"impl": true, "enum": true, "module": true, "extension": true, "namespace": true}

// decl is a declaration found on one line.
type decl struct {
	row        int
	indent     int
	kind, name string
}

// declarations finds the declarations of rows a..b.
func declarations(l *lines, a, b int) []decl {
	var out []decl
	for r := a; r <= b; r++ {
		line := l.line(r)
		if len(line) > 300 || commentLine(line) {
			continue
		}
		for _, p := range declPatterns {
			m := p.re.FindSubmatch(line)
			if m == nil {
				continue
			}
			kind := p.kind
			if kind == "" {
				kind = string(m[1])
				if k := declKinds[kind]; k != "" {
					kind = k
				}
			}
			name := string(m[2])
			if i, j := strings.IndexByte(name, '<'), strings.LastIndexByte(name, '>'); 0 < i && i < j {
				name = name[:i] + name[j+1:] // List<T>.second
			}
			indent := len(line) - len(bytes.TrimLeft(line, " \t"))
			out = append(out, decl{row: r, indent: indent, kind: kind, name: name})
			break
		}
	}
	return out
}

// declWindows chunks rows a..b of a file in a language without a grammar
// in windows, as other text, and names each window after the first
// declaration in it, or else the one it continues. A member's name is
// prefixed with its container's, as tree-sitter's are (Type.method). It
// returns nil when a..b declares nothing.
func (c *chunker) declWindows(l *lines, a, b int) []piece {
	decls := declarations(l, a, b)
	if len(decls) == 0 {
		return nil
	}
	var stack []decl // the containers a declaration is in
	for i, d := range decls {
		for len(stack) > 0 && stack[len(stack)-1].indent >= d.indent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			decls[i].name = stack[len(stack)-1].name + "." + d.name
		}
		if containerKinds[d.kind] {
			stack = append(stack, decls[i])
		}
	}
	starts := make([]int, len(decls))
	for i, d := range decls {
		starts[i] = declStart(l, a, d.row)
	}
	var out []piece
	j := 0
	for _, win := range l.packTiers(a, b, c.window, starts, paragraphStarts(l, a, b)) {
		p := piece{start: win[0], end: win[1], kind: "text"}
		for j+1 < len(decls) && decls[j+1].row <= win[0] {
			j++
		}
		d := decls[j]
		if j+1 < len(decls) && d.row < win[0] && decls[j+1].row <= win[1] {
			d = decls[j+1] // the window starts a declaration of its own
		}
		if d.row <= win[1] {
			p.kind, p.symbol = d.kind, d.name
			if d.row >= win[0] {
				p.sig = strings.TrimSpace(string(l.line(d.row)))
			}
		}
		out = append(out, p)
	}
	return out
}

// declStart is the first row of the declaration at row: the comments and
// annotations right above it belong to it.
func declStart(l *lines, a, row int) int {
	for row > a {
		prev := l.line(row - 1)
		if len(bytes.TrimSpace(prev)) == 0 || !commentLine(prev) && !bytes.HasPrefix(bytes.TrimSpace(prev), []byte("@")) {
			break
		}
		row--
	}
	return row
}
