package tui

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/gdamore/tcell/v2"
)

// highlighter colours code: chroma's lexers cut it into tokens, and
// tern's own palette, drawn from the TUI's theme, colours them. It is
// safe for concurrent use; the pump uses it off the UI goroutine.
type highlighter struct {
	palette map[chroma.TokenType]tcell.Style // nil: no colours
	plain   tcell.Style
}

func newHighlighter(th theme) highlighter {
	h := highlighter{plain: th.code}
	if !th.mono {
		h.palette = codePalette(th)
	}
	return h
}

// codePalette gives each kind of token a style in the theme's colours,
// so that code reads like the rest of the screen: an added line of a diff
// is green as in tern's own diffs, a heading blue as in its Markdown. A
// token takes the style of its type, else of its subcategory (a string
// escape: a string), else of its category (any keyword); what none of
// them names, plain names and text, keeps the terminal's colour.
func codePalette(th theme) map[chroma.TokenType]tcell.Style {
	d := tcell.StyleDefault
	return map[chroma.TokenType]tcell.Style{
		chroma.Keyword:           d.Foreground(tcell.ColorLightCoral),
		chroma.KeywordType:       d.Foreground(tcell.ColorKhaki),
		chroma.KeywordConstant:   d.Foreground(tcell.ColorLightSkyBlue),
		chroma.NameBuiltin:       d.Foreground(tcell.ColorKhaki),
		chroma.NameClass:         d.Foreground(tcell.ColorKhaki).Bold(true),
		chroma.NameFunction:      d.Foreground(tcell.ColorPlum),
		chroma.NameDecorator:     d.Foreground(tcell.ColorPlum),
		chroma.NameTag:           d.Foreground(tcell.ColorLightCoral),
		chroma.NameAttribute:     d.Foreground(tcell.ColorLightSkyBlue),
		chroma.NameConstant:      d.Foreground(tcell.ColorLightSkyBlue),
		chroma.LiteralString:     d.Foreground(tcell.ColorDarkSeaGreen),
		chroma.LiteralNumber:     d.Foreground(tcell.ColorLightSkyBlue),
		chroma.Literal:           d.Foreground(tcell.ColorLightSkyBlue),
		chroma.Operator:          d.Foreground(tcell.ColorLightCoral),
		chroma.Comment:           th.quote,
		chroma.CommentPreproc:    d.Foreground(tcell.ColorLightCoral),
		chroma.GenericInserted:   th.diffAdd,
		chroma.GenericDeleted:    th.diffDel,
		chroma.GenericHeading:    th.heading2,
		chroma.GenericSubheading: th.diffHunk,
		chroma.GenericEmph:       th.italic,
		chroma.GenericStrong:     th.bold,
		chroma.Error:             th.errorText,
	}
}

// lines returns code as styled lines, highlighted when the language is
// known. An empty or unknown language gets the plain code style.
func (h highlighter) lines(code, lang string) []line {
	code = strings.TrimRight(cleanText(code), "\n")
	var lexer chroma.Lexer
	if h.palette != nil && lang != "" {
		lexer = lexers.Get(lang)
	}
	if lexer == nil {
		return textLines(code, h.plain)
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return textLines(code, h.plain)
	}
	out := []line{{}}
	for tok := it(); tok != chroma.EOF; tok = it() {
		st := h.tokenStyle(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				out = append(out, line{})
			}
			if p != "" {
				cur := &out[len(out)-1]
				cur.spans = append(cur.spans, span{text: p, style: st})
			}
		}
	}
	for len(out) > 0 && len(out[len(out)-1].spans) == 0 {
		out = out[:len(out)-1]
	}
	return out
}

func (h highlighter) tokenStyle(t chroma.TokenType) tcell.Style {
	for _, k := range []chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if st, ok := h.palette[k]; ok {
			return st
		}
	}
	return tcell.StyleDefault
}
