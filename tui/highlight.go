package tui

import (
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/gdamore/tcell/v2"

	"github.com/ternhq/tern/tui/lexers"
)

// codeStyle is the chroma style for code blocks: readable on the dark
// backgrounds most terminals use, and tolerable on light ones. It is
// chroma's github-dark, written out here: chroma's styles package parses
// all of its seventy styles when a program starts (6 ms, headless too).
var codeStyle = sync.OnceValue(func() *chroma.Style {
	return chroma.MustNewStyle("github-dark", chroma.StyleEntries{
		chroma.Error:                  "#f85149",
		chroma.LineHighlight:          "bg:#6e7681",
		chroma.LineNumbers:            "#6e7681",
		chroma.Background:             "#e6edf3 bg:#0d1117",
		chroma.Keyword:                "#ff7b72",
		chroma.KeywordConstant:        "#79c0ff",
		chroma.KeywordPseudo:          "#79c0ff",
		chroma.Name:                   "#e6edf3",
		chroma.NameClass:              "bold #f0883e",
		chroma.NameConstant:           "bold #79c0ff",
		chroma.NameDecorator:          "bold #d2a8ff",
		chroma.NameEntity:             "#ffa657",
		chroma.NameException:          "bold #f0883e",
		chroma.NameFunction:           "bold #d2a8ff",
		chroma.NameLabel:              "bold #79c0ff",
		chroma.NameNamespace:          "#ff7b72",
		chroma.NameOther:              "#e6edf3",
		chroma.NameProperty:           "#79c0ff",
		chroma.NameTag:                "#7ee787",
		chroma.NameVariable:           "#79c0ff",
		chroma.Literal:                "#a5d6ff",
		chroma.LiteralDate:            "#79c0ff",
		chroma.LiteralStringAffix:     "#79c0ff",
		chroma.LiteralStringDelimiter: "#79c0ff",
		chroma.LiteralStringEscape:    "#79c0ff",
		chroma.LiteralStringHeredoc:   "#79c0ff",
		chroma.LiteralStringRegex:     "#79c0ff",
		chroma.Operator:               "bold #ff7b72",
		chroma.Comment:                "italic #8b949e",
		chroma.CommentSpecial:         "bold italic #8b949e",
		chroma.CommentPreproc:         "bold #8b949e",
		chroma.Generic:                "#e6edf3",
		chroma.GenericDeleted:         "#ffa198 bg:#490202",
		chroma.GenericEmph:            "italic",
		chroma.GenericError:           "#ffa198",
		chroma.GenericHeading:         "bold #79c0ff",
		chroma.GenericInserted:        "#56d364 bg:#0f5323",
		chroma.GenericOutput:          "#8b949e",
		chroma.GenericPrompt:          "#8b949e",
		chroma.GenericStrong:          "bold",
		chroma.GenericSubheading:      "#79c0ff",
		chroma.GenericTraceback:       "#ff7b72",
		chroma.GenericUnderline:       "underline",
		chroma.TextWhitespace:         "#6e7681",
	})
})

// highlighter colours code with chroma. It is safe for concurrent use; the
// pump uses it off the UI goroutine.
type highlighter struct {
	style *chroma.Style // nil: no colours
	plain tcell.Style
}

func newHighlighter(th theme) highlighter {
	h := highlighter{plain: th.code}
	if !th.mono {
		h.style = codeStyle()
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
