package tui

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/gdamore/tcell/v2"
)

// codeStyleName is the chroma style for code blocks: readable on the dark
// backgrounds most terminals use, and tolerable on light ones.
const codeStyleName = "github-dark"

// highlighter colours code with chroma. It is safe for concurrent use; the
// pump uses it off the UI goroutine.
type highlighter struct {
	style *chroma.Style // nil: no colours
	plain tcell.Style
}

func newHighlighter(th theme) highlighter {
	h := highlighter{plain: th.code}
	if !th.mono {
		h.style = styles.Get(codeStyleName)
	}
	return h
}

// lines returns code as styled lines, highlighted when the language is
// known. An empty or unknown language gets the plain code style.
func (h highlighter) lines(code, lang string) []line {
	code = strings.TrimRight(cleanText(code), "\n")
	var lexer chroma.Lexer
	if h.style != nil && lang != "" {
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
	e := h.style.Get(t)
	st := tcell.StyleDefault
	if e.Colour.IsSet() {
		st = st.Foreground(tcell.NewRGBColor(int32(e.Colour.Red()), int32(e.Colour.Green()), int32(e.Colour.Blue())))
	}
	if e.Bold == chroma.Yes {
		st = st.Bold(true)
	}
	if e.Italic == chroma.Yes {
		st = st.Italic(true)
	}
	if e.Underline == chroma.Yes {
		st = st.Underline(true)
	}
	return st
}
