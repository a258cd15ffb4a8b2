package shell

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word with its quoting removed.
type word struct {
	// text is the word's value when static, else its source text.
	text string
	// static is set when the value is known from the text alone.
	static bool
	// unknown is set when the word could turn into anything when the shell
	// expands it: an option, or several words.
	unknown bool
}

func lit(s string) word { return word{text: s, static: true} }

// resolve removes a word's quoting. A word with expansions ($x, $(…),
// globs, braces) is dynamic; it is unknown unless it starts with literal
// text that is not an option and cannot be split into several words.
func resolve(w *syntax.Word) word {
	orig := w
	w = &syntax.Word{Parts: slices.Clone(w.Parts)} // SplitBraces changes the word
	syntax.SplitBraces(w)
	var b strings.Builder
	static, split := true, false
	prefix := ""
	dynamic := func() {
		if static {
			prefix = b.String()
		}
		static = false
	}
	var visit func(parts []syntax.WordPart, quoted bool)
	visit = func(parts []syntax.WordPart, quoted bool) {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(unescapeQuoted(p.Value))
					continue
				}
				if i := globAt(p.Value); i >= 0 {
					b.WriteString(unescape(p.Value[:i]))
					dynamic()
					continue
				}
				b.WriteString(unescape(p.Value))
			case *syntax.SglQuoted:
				if !p.Dollar {
					b.WriteString(p.Value)
					continue
				}
				s, ok := ansiC(p.Value)
				if !ok {
					dynamic()
				}
				b.WriteString(s)
			case *syntax.DblQuoted:
				visit(p.Parts, true)
			case *syntax.ProcSubst:
				b.WriteString("/dev/fd/")
				dynamic()
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
				dynamic()
				split = split || !quoted
			default: // globs, brace expansions
				dynamic()
			}
		}
	}
	visit(w.Parts, false)
	if static {
		return word{text: b.String(), static: true}
	}
	return word{text: source(orig), unknown: split || prefix == "" || strings.HasPrefix(prefix, "-")}
}

// source prints a node as shell text.
func source(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// globAt returns where unquoted literal text has its first glob character
// that is not escaped, or -1.
func globAt(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return i
		}
	}
	return -1
}

// unescape removes the backslashes of unquoted text.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeQuoted removes the backslashes double quotes remove.
func unescapeQuoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a $'…' string. ok is false for an escape it
// does not know.
func ansiC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			base, max := 16, map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i + 1
			if max == 0 {
				base, max, j = 8, 3, i
			}
			end := j
			for end < len(s) && end-j < max && strconv.IsPrint(rune(s[end])) && isDigit(s[end], base) {
				end++
			}
			if end == j {
				return b.String(), false
			}
			n, err := strconv.ParseUint(s[j:end], base, 32)
			if err != nil {
				return b.String(), false
			}
			if c == 'u' || c == 'U' {
				b.WriteString(string(rune(n)))
			} else {
				b.WriteByte(byte(n))
			}
			i = end - 1
		default:
			return b.String(), false
		}
	}
	return b.String(), true
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base == 16
	case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}
