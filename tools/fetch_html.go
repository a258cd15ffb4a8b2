package tools

import (
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToMarkdown turns a page into its title and the Markdown of its main
// content: the <main> element if there is one, else the page's only
// <article>, else <body>. Scripts, styles, navigation, sidebars, footers,
// forms and media are left out (a text model cannot use them, and they cost
// tokens); relative links are made absolute against pageURL.
func htmlToMarkdown(page, pageURL string) (title, md string, err error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "", "", err
	}
	title = pageTitle(doc)
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))
	for _, tag := range [...]string{"nav", "aside", "footer", "form", "button", "svg", "img", "picture", "video", "audio", "canvas", "template", "select", "dialog"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	out, err := conv.ConvertNode(mainContent(doc), converter.WithDomain(pageURL))
	if err != nil {
		return title, "", err
	}
	return title, tidyMarkdown(string(out)), nil
}

// pageTitle is the text of the page's <title>, whitespace collapsed.
func pageTitle(doc *html.Node) string {
	t := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Title })
	if t == nil {
		return ""
	}
	var b strings.Builder
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	title := strings.Join(strings.Fields(b.String()), " ")
	if len(title) > 200 {
		title, _ = Cap(title, 200)
	}
	return title
}

// mainContent picks the part of the page that holds its content.
func mainContent(doc *html.Node) *html.Node {
	if m := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Main }); m != nil {
		return m
	}
	var articles []*html.Node
	walk(doc, func(n *html.Node) {
		if n.DataAtom == atom.Article {
			articles = append(articles, n)
		}
	})
	if len(articles) == 1 {
		return articles[0]
	}
	if b := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body }); b != nil {
		return b
	}
	return doc
}

// find returns the first element, in document order, for which match holds.
func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, match); f != nil {
			return f
		}
	}
	return nil
}

// walk calls fn for every element under n, in document order.
func walk(n *html.Node, fn func(*html.Node)) {
	if n.Type == html.ElementNode {
		fn(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

// tidyMarkdown trims trailing spaces and keeps at most one blank line in a
// row, outside fenced code blocks.
func tidyMarkdown(md string) string {
	var b strings.Builder
	blank := 0
	fenced := false
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		} else if fenced {
			b.WriteString(line)
			b.WriteByte('\n')
			continue
		}
		line = strings.TrimRight(line, " \t")
		if line == "" {
			if blank++; blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}
