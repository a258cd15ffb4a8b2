package tui

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders the model's Markdown into styled lines: headings,
// lists, emphasis, inline code, links, quotes, tables and fenced code with
// syntax highlighting. It is safe for concurrent use.
type markdown struct {
	th     theme
	hl     highlighter
	parser parser.Parser
}

func newMarkdown(th theme) *markdown {
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
	return &markdown{th: th, hl: newHighlighter(th), parser: md.Parser()}
}

// render parses src and returns its lines. Streaming text is rendered
// whole at each flush: an unclosed fence is a code block to the end, so a
// partial answer renders as the finished one will, line for line.
func (m *markdown) render(src string) []line {
	src = cleanText(src)
	source := []byte(src)
	doc := m.parser.Parse(text.NewReader(source))
	r := &mdRenderer{m: m, src: source}
	r.children(doc, &prefix{}, true)
	for len(r.out) > 0 && len(r.out[len(r.out)-1].spans) == 0 {
		r.out = r.out[:len(r.out)-1]
	}
	return r.out
}

// prefix is what starts each line of a block: first for its first line
// (a list marker), rest for the others.
type prefix struct {
	first, rest []span
	used        bool
}

func (p *prefix) next() []span {
	if !p.used {
		p.used = true
		return p.first
	}
	return p.rest
}

type mdRenderer struct {
	m   *markdown
	src []byte
	out []line
}

func (r *mdRenderer) emit(pre []span, spans []span) {
	l := line{spans: append(append([]span(nil), pre...), spans...)}
	l.hang = spansWidth(pre)
	r.out = append(r.out, l)
}

func spansWidth(spans []span) int {
	w := 0
	for _, s := range spans {
		w += textWidth(s.text)
	}
	return w
}

func join(a []span, b ...span) []span { return append(append([]span(nil), a...), b...) }

// children renders the blocks under n, a blank line between them when
// loose is set.
func (r *mdRenderer) children(n ast.Node, p *prefix, loose bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && loose {
			r.emit(trimRight(p.rest), nil)
		}
		r.block(c, p)
	}
}

// trimRight drops the trailing spaces of a prefix for blank lines.
func trimRight(pre []span) []span {
	out := append([]span(nil), pre...)
	for len(out) > 0 {
		last := &out[len(out)-1]
		last.text = strings.TrimRight(last.text, " ")
		if last.text != "" {
			break
		}
		out = out[:len(out)-1]
	}
	return out
}

func (r *mdRenderer) block(n ast.Node, p *prefix) {
	th := r.m.th
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		for _, l := range r.inlines(n, th.text) {
			r.emit(p.next(), l)
		}
	case *ast.Heading:
		st := th.heading
		if n.Level > 1 {
			st = th.heading2
		}
		for _, l := range r.inlines(n, st) {
			r.emit(p.next(), l)
		}
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			if item != n.FirstChild() && !n.IsTight {
				r.emit(trimRight(p.rest), nil)
			}
			marker := "• "
			if n.IsOrdered() {
				marker = fmt.Sprintf("%d. ", num)
				num++
			}
			ip := &prefix{
				first: join(p.next(), span{text: marker, style: th.dim}),
				rest:  join(p.rest, span{text: strings.Repeat(" ", textWidth(marker))}),
			}
			r.children(item, ip, !n.IsTight)
		}
	case *ast.Blockquote:
		bar := span{text: "│ ", style: th.quote}
		r.children(n, &prefix{first: join(p.next(), bar), rest: join(p.rest, bar)}, true)
	case *ast.FencedCodeBlock:
		r.code(p, r.lines(n.Lines()), string(n.Language(r.src)))
	case *ast.CodeBlock:
		r.code(p, r.lines(n.Lines()), "")
	case *ast.HTMLBlock:
		for _, l := range textLines(r.lines(n.Lines()), th.dim) {
			r.emit(p.next(), l.spans)
		}
	case *ast.ThematicBreak:
		r.emit(p.next(), []span{{text: strings.Repeat("─", 40), style: th.rule}})
	case *east.Table:
		r.table(n, p)
	default:
		r.children(n, p, true)
	}
}

// lines joins the source segments of a block.
func (r *mdRenderer) lines(segs *text.Segments) string {
	var b bytes.Buffer
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		b.Write(s.Value(r.src))
	}
	return b.String()
}

func (r *mdRenderer) code(p *prefix, code, lang string) {
	pad := span{text: "  "}
	for _, l := range r.m.hl.lines(code, lang) {
		r.emit(p.next(), join([]span{pad}, l.spans...))
	}
	if strings.TrimSpace(code) == "" {
		r.emit(p.next(), nil)
	}
}

// inlines renders the inline content of n as lines of spans, split at
// line breaks.
func (r *mdRenderer) inlines(n ast.Node, st tcell.Style) [][]span {
	lines := [][]span{nil}
	add := func(s span) {
		if s.text != "" {
			lines[len(lines)-1] = append(lines[len(lines)-1], s)
		}
	}
	var walk func(n ast.Node, st tcell.Style)
	walk = func(n ast.Node, st tcell.Style) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.inline(c, st, add, walk)
			if t, ok := c.(*ast.Text); ok && (t.SoftLineBreak() || t.HardLineBreak()) {
				lines = append(lines, nil)
			}
		}
	}
	walk(n, st)
	for len(lines) > 1 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func (r *mdRenderer) inline(n ast.Node, st tcell.Style, add func(span), walk func(ast.Node, tcell.Style)) {
	th := r.m.th
	switch n := n.(type) {
	case *ast.Text:
		v := n.Value(r.src)
		if !n.IsRaw() {
			v = util.ResolveNumericReferences(util.ResolveEntityNames(util.UnescapePunctuations(v)))
		}
		add(span{text: string(v), style: st})
	case *ast.String:
		add(span{text: string(n.Value), style: st})
	case *ast.CodeSpan:
		add(span{text: r.plain(n), style: th.code})
	case *ast.Emphasis:
		if n.Level >= 2 {
			walk(n, st.Bold(true))
		} else {
			walk(n, st.Italic(true))
		}
	case *east.Strikethrough:
		walk(n, st.StrikeThrough(true))
	case *ast.Link:
		label := r.plain(n)
		walk(n, th.link)
		if dest := string(n.Destination); dest != "" && dest != label {
			add(span{text: " (" + dest + ")", style: th.dim})
		}
	case *ast.AutoLink:
		add(span{text: string(n.URL(r.src)), style: th.link})
	case *ast.Image:
		add(span{text: "[image: " + r.plain(n) + "]", style: th.dim})
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			s := n.Segments.At(i)
			b.Write(s.Value(r.src))
		}
		add(span{text: b.String(), style: st})
	case *east.TaskCheckBox:
		mark := "☐ "
		if n.IsChecked {
			mark = "☑ "
		}
		add(span{text: mark, style: st})
	default:
		walk(n, st)
	}
}

// plain is the text under an inline node, without styles.
func (r *mdRenderer) plain(n ast.Node) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Value(r.src))
				if c.SoftLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// table lays a table out in columns as wide as their widest cell.
func (r *mdRenderer) table(t *east.Table, p *prefix) {
	th := r.m.th
	var rows [][][]span
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells [][]span
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			var flat []span
			for i, l := range r.inlines(c, th.text) {
				if i > 0 {
					flat = append(flat, span{text: " "})
				}
				flat = append(flat, l...)
			}
			if _, header := row.(*east.TableHeader); header {
				for i := range flat {
					flat[i].style = flat[i].style.Bold(true)
				}
			}
			cells = append(cells, flat)
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, cells := range rows {
		for i, c := range cells {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], spansWidth(c))
		}
	}
	sep := span{text: " │ ", style: th.rule}
	for ri, cells := range rows {
		var out []span
		for i, c := range cells {
			if i > 0 {
				out = append(out, sep)
			}
			out = append(out, c...)
			if pad := widths[i] - spansWidth(c); pad > 0 && i < len(cells)-1 {
				out = append(out, span{text: strings.Repeat(" ", pad)})
			}
		}
		r.emit(p.next(), out)
		if ri == 0 && len(rows) > 1 {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			r.emit(p.next(), []span{{text: strings.Join(rule, "─┼─"), style: th.rule}})
		}
	}
}
