package index

import (
	"bytes"
	"context"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Chunk limits. A symbol larger than this is split at its children's
// boundaries; text outside symbols is cut into windows of at most a window.
const (
	maxChunkLines  = 100
	maxChunkBytes  = 4096
	maxWindowLines = 50
	maxWindowBytes = 2048
)

// A piece is a chunk as the chunker produces it: a line range (0-based,
// inclusive) with what it holds.
type piece struct {
	start, end int
	kind       string
	symbol     string
	sig        string
}

// A chunker turns a file into pieces. It owns a tree-sitter parser and is
// not safe for concurrent use; Close frees the parser's C memory.
type chunker struct {
	parser *sitter.Parser
	code   limits
	window limits
}

func newChunker() *chunker {
	return &chunker{
		parser: sitter.NewParser(),
		code:   limits{maxChunkLines, maxChunkBytes},
		window: limits{maxWindowLines, maxWindowBytes},
	}
}

func (c *chunker) Close() { c.parser.Close() }

// chunk splits src, in language lang, into pieces ordered by line. Files
// tree-sitter cannot parse fall back to line windows; a parse that ctx
// cancels returns ctx's error.
func (c *chunker) chunk(ctx context.Context, lang string, src []byte) ([]piece, error) {
	return c.chunkLines(ctx, lang, newLines(src))
}

// chunkLines is chunk for a file whose lines are indexed.
func (c *chunker) chunkLines(ctx context.Context, lang string, l *lines) ([]piece, error) {
	src := l.src
	g := grammarNamed(lang)
	if g == nil {
		return c.windows(l, lang), nil
	}
	c.parser.SetLanguage(g.Language())
	// The parse is not cancellable: go-tree-sitter's watcher goroutine can
	// raise the cancellation flag after a parse has finished, which then
	// fails the parser's next, unrelated parse. Files are at most a few
	// MB, parsed in well under a second, so ctx is checked between files.
	tree, err := c.parser.ParseCtx(context.Background(), nil, src)
	if err != nil {
		c.parser.Reset() // a halted parse would resume on the next call
		return c.windows(l, "text"), nil
	}
	if err := ctx.Err(); err != nil {
		tree.Close()
		return nil, err
	}
	defer tree.Close()
	cur := sitter.NewTreeCursor(tree.RootNode())
	defer cur.Close()
	w := &walk{c: c, g: g, l: l, src: src, cur: cur}
	w.collect(tree.RootNode(), scope{}, 0)
	return w.finish(), nil
}

// scope is the declaration the walk is inside.
type scope struct {
	name   string
	isType bool
}

// walk is the state of chunking one parsed file.
type walk struct {
	c      *chunker
	g      *grammar
	l      *lines
	src    []byte
	cur    *sitter.TreeCursor
	leaves []piece
	groups []piece // containers: their lines outside members are theirs
}

// children lists the named children of n with the shared cursor.
func (w *walk) children(n *sitter.Node) []*sitter.Node {
	w.cur.Reset(n)
	if !w.cur.GoToFirstChild() {
		return nil
	}
	var out []*sitter.Node
	for {
		if ch := w.cur.CurrentNode(); ch.IsNamed() {
			out = append(out, ch)
		}
		if !w.cur.GoToNextSibling() {
			return out
		}
	}
}

// lastRow is the last line a node occupies: a node ending at column 0 ends
// on the line before.
func lastRow(n *sitter.Node) int {
	end := n.EndPoint()
	if end.Column == 0 && end.Row > n.StartPoint().Row {
		return int(end.Row) - 1
	}
	return int(end.Row)
}

// symbolOf classifies n, looking through wrappers; inner is the node the
// symbol was found on.
func (w *walk) symbolOf(n *sitter.Node) (s sym, inner *sitter.Node) {
	for depth := 0; depth < 4; depth++ {
		if !w.g.wrappers[n.Type()] {
			return w.g.classify(n, w.src), n
		}
		var next *sitter.Node
		for _, ch := range w.children(n) {
			if s := w.g.classify(ch, w.src); s.kind != "" || w.g.wrappers[ch.Type()] {
				next = ch
				break
			}
		}
		if next == nil {
			return sym{}, n
		}
		n = next
	}
	return sym{}, n
}

// collect finds the symbols among n's children. floor is the first row a
// doc comment may start on.
func (w *walk) collect(n *sitter.Node, sc scope, floor int) {
	for _, ch := range w.children(n) {
		s, _ := w.symbolOf(ch)
		if s.kind == "" {
			if s.members != nil {
				w.collect(s.members, sc, floor)
				floor = max(floor, lastRow(ch)+1)
			}
			continue
		}
		start := max(int(ch.StartPoint().Row), floor)
		end := lastRow(ch)
		if end < start {
			continue // shares its line with the previous symbol
		}
		start = w.docStart(start, floor)
		name, kind := s.name, s.kind
		if sc.isType {
			name = sc.name + w.g.sep + name
			if kind == "function" {
				kind = "method"
			}
		}
		sigRow := int(ch.StartPoint().Row)
		if s.nameNode != nil {
			sigRow = int(s.nameNode.StartPoint().Row)
		}
		p := piece{start: start, end: end, kind: kind, symbol: name, sig: w.signature(int(ch.StartPoint().Row), sigRow)}
		if compactKinds[kind] && w.l.fits(start, end, w.c.code) {
			s.members = nil // a small interface reads best whole
		}
		if s.members != nil {
			w.groups = append(w.groups, p)
			inner := scope{name: sc.name, isType: sc.isType}
			if typeKinds[kind] {
				inner = scope{name: name, isType: true}
			}
			w.collect(s.members, inner, sigRow+1)
		} else {
			w.addLeaf(p, ch)
		}
		floor = end + 1
	}
}

// docStart extends a symbol starting at row upwards over the comment,
// attribute and decorator lines directly above it, not above floor.
func (w *walk) docStart(row, floor int) int {
	for row > floor {
		line := bytes.TrimSpace(w.l.line(row - 1))
		if w.g.blocks && bytes.HasSuffix(line, []byte("*/")) {
			top := row - 1
			for top >= floor && !bytes.Contains(w.l.line(top), []byte("/*")) {
				top--
			}
			if top < floor {
				return row
			}
			row = top
			continue
		}
		if len(line) == 0 || !hasAnyPrefix(line, w.g.comments) {
			return row
		}
		row--
	}
	return row
}

func hasAnyPrefix(b []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// signature is the line a symbol's name stands on, without an opening
// brace. When the name comes after the body (C's typedef struct {…} name)
// the declaration's first line leads.
func (w *walk) signature(first, nameRow int) string {
	s := trimSig(w.l.line(nameRow))
	if nameRow > first && strings.HasPrefix(s, "}") {
		s = trimSig(w.l.line(first)) + " … " + s
	}
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

func trimSig(line []byte) string {
	s := strings.TrimSpace(string(line))
	return strings.TrimSpace(strings.TrimSuffix(s, "{"))
}

// addLeaf records a symbol, split at its children's lines when too large.
func (w *walk) addLeaf(p piece, n *sitter.Node) {
	if w.l.fits(p.start, p.end, w.c.code) {
		w.leaves = append(w.leaves, p)
		return
	}
	var cuts []int
	w.cutRows(n, &cuts, 0)
	slices.Sort(cuts)
	for i, r := range w.l.pack(p.start, p.end, slices.Compact(cuts), w.c.code) {
		q := p
		q.start, q.end = r[0], r[1]
		if i > 0 {
			q.sig = ""
		}
		w.leaves = append(w.leaves, q)
	}
}

// cutRows collects the rows where n's descendants start, going deeper
// only into children too large to stay whole.
func (w *walk) cutRows(n *sitter.Node, cuts *[]int, depth int) {
	if depth > 6 {
		return
	}
	for _, ch := range w.children(n) {
		r := int(ch.StartPoint().Row)
		*cuts = append(*cuts, r)
		if !w.l.fits(r, lastRow(ch), w.c.code) {
			w.cutRows(ch, cuts, depth+1)
		}
	}
}

// finish turns the leaves and the lines between them into the file's
// pieces. Lines inside a container but outside its members belong to the
// container (a class header, its fields); other lines are plain code.
func (w *walk) finish() []piece {
	n := w.l.count()
	owner := make([]int, n)
	for i := range owner {
		owner[i] = -1
	}
	for gi, g := range w.groups { // outer groups come first, inner ones overwrite
		for r := g.start; r <= g.end && r < n; r++ {
			owner[r] = gi
		}
	}
	for _, p := range w.leaves {
		for r := p.start; r <= p.end && r < n; r++ {
			owner[r] = -2
		}
	}
	out := w.leaves
	for r := 0; r < n; {
		if owner[r] == -2 {
			r++
			continue
		}
		o, start := owner[r], r
		for r < n && owner[r] == o {
			r++
		}
		tmpl := piece{kind: "code"}
		if o >= 0 {
			tmpl = w.groups[o]
		}
		out = append(out, w.gap(start, r-1, tmpl)...)
	}
	slices.SortFunc(out, func(a, b piece) int { return a.start - b.start })
	return out
}

// gap windows the rows a..b, which no symbol covers, into pieces like tmpl.
func (w *walk) gap(a, b int, tmpl piece) []piece {
	var out []piece
	for _, r := range runs(w.l, a, b) {
		for _, win := range w.l.pack(r[0], r[1], paragraphStarts(w.l, r[0], r[1]), w.c.window) {
			p := tmpl
			p.start, p.end = win[0], win[1]
			if tmpl.sig != "" && !strings.Contains(w.l.text(p.start, p.end), tmpl.sig) {
				p.sig = ""
			}
			out = append(out, p)
		}
	}
	return out
}
