package models

import (
	"regexp"
	"strings"
)

// The tolerant reader catches the calls the exact parsers miss. It does
// not know call formats; it knows the offered tools. It looks for their
// names (and the names other agents give them) where a call would put
// them, next to markup, and reads the argument pairs written after each
// in whatever syntax the model chose: JSON, XML-ish parameters,
// key="value", key: value, --key value, key => value. Then it decides by
// fit: a call is read only when the arguments found fit the named tool's
// schema, its required arguments among them. A name in markup whose
// arguments do not fit is a call the model meant but wrote wrong: the
// reader says so, and which tool, so that the correction can show it.
//
// Two shapes name no tool. A reply that is one command line, alone or
// after a word that names a shell or a sentence that announces it, is a
// call of the tool that runs commands. A reply that is nothing but
// argument pairs is a call of the one offered tool they fit.

// Repair paths of the tolerant reader.
const (
	RepairLoose   = "loose"   // an offered tool named in markup, its arguments read in the syntax that follows
	RepairCommand = "command" // a command line and nothing else, read as a call of the tool that runs commands
)

// looseReading is what the tolerant reader made of a reply.
type looseReading struct {
	calls []RepairedCall
	spans [][2]int
	// text is the reply as the reader saw it (typeset quotes made plain,
	// template tokens out), which the spans index.
	text string
	// meant is set when the reply names an offered tool in markup, or is
	// argument pairs, but no call fits: tool is the tool it seemed to mean
	// ("" if none fits better than another) and why says what is wrong.
	meant     bool
	tool, why string
}

// readLoose runs the tolerant reader over text.
func readLoose(text string, specs []ToolSpec) looseReading {
	t := plainText(text)
	r := looseReading{text: t}
	if len(specs) == 0 || strings.TrimSpace(t) == "" {
		return r
	}
	q := quotingOf(t)
	anchors := findAnchors(t, specs, q)
	consumed := 0
	for i, a := range anchors {
		if a.start < consumed {
			continue // a value of the call before: <shell>cat go.mod</shell>
		}
		end := len(t)
		for _, b := range anchors[i+1:] {
			if !attached(t, a, b) {
				end = b.start
				break
			}
		}
		region := t[a.end:end]
		c, used, ok := a.read(region, specs)
		if !ok {
			continue
		}
		consumed = a.end + used
		c = mend(c, specs)
		if c.Problem == "" {
			r.calls = append(r.calls, c)
			r.spans = append(r.spans, [2]int{a.from(t), closingMarkup(t, a.end+used)})
			continue
		}
		if a.strong && !q.citedAt(a.start) && !r.meant {
			r.meant, r.tool, r.why = true, specs[a.spec].Name, c.Problem
		}
	}
	if len(r.calls) > 0 || r.meant {
		return r
	}
	if c, span, ok := commandCall(t, specs, q); ok {
		r.calls, r.spans = []RepairedCall{c}, [][2]int{span}
		return r
	}
	if c, ok := pairsCall(t, q, specs); ok {
		c = mend(c, specs)
		if c.Problem == "" {
			r.calls, r.spans = []RepairedCall{c}, [][2]int{{0, len(t)}}
		} else {
			r.meant, r.tool, r.why = true, c.Name, c.Problem
		}
	}
	return r
}

// attached reports whether anchor b is only the first word of what
// anchor a's markup encloses (<shell>cat go.mod</shell>, bash(ls …)):
// a's value, not a call of its own.
func attached(text string, a, b anchor) bool {
	return strings.Trim(text[a.end:b.start], " \t>({:\"'") == "" && !b.lineStart
}

// Template tokens the reader sees through: MiniMax M3's namespace marker
// (]<]minimax[>[ before every tag), Gemma 4's string quotes (<|"|>,
// <escape>) and its thought channel.
var (
	namespaceToken = regexp.MustCompile(`\]<\][\w.\-]{1,24}\[>\[`)
	gemmaQuote     = regexp.MustCompile(`<\|"\|>|<escape>`)
	thoughtChannel = regexp.MustCompile(`(?s)<\|channel>.*?<channel\|>`)
	typesetQuotes  = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'")
)

// plainText is text as the reader reads it: template tokens that only
// wrap a call taken out, and typographic quotes made plain when they
// delimit (a call someone's editor typeset).
func plainText(text string) string {
	t := namespaceToken.ReplaceAllString(text, "")
	t = thoughtChannel.ReplaceAllString(t, "")
	t = gemmaQuote.ReplaceAllString(t, `"`)
	if strings.ContainsAny(t, "\u201c\u201d") && strings.ContainsAny(t, "{<=:") {
		t = typesetQuotes.Replace(t)
	}
	return t
}

// closingTag matches a closing tag or a template's closing token, with
// the space before it.
var closingTag = regexp.MustCompile(`^\s*(?:</[\w:.\-]{1,60}>|<\|/?[\w:.\-]{1,40}\|?>|<[\w:.\-]{1,40}\|>|\[/[A-Z_]{3,}\])`)

// closingMarkup is where a call's text ends that ends at end but for the
// tags that close it.
func closingMarkup(text string, end int) int {
	for {
		m := closingTag.FindStringIndex(text[end:])
		if m == nil {
			return end
		}
		end += m[1]
	}
}
