package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ternhq/tern/tools/lsp"
)

//go:embed definition.md
var definitionDoc string

//go:embed references.md
var referencesDoc string

// maxLocations is how many places definition and references list.
const maxLocations = 30

// symbolSearch is how many lines around the given one a symbol is looked
// for: small models often give the line next to it.
const symbolSearch = 3

// navigate is the definition or the references tool: the language
// server's answer for a symbol the model names by file, line and name,
// which a grep for a common name answers badly.
type navigate struct {
	Decl
	ws      *Workspace
	servers LanguageServers
	// references, else definition.
	references bool
}

type navigateArgs struct {
	Path   string `json:"path" tool:"required,subject=scope"`
	Line   intArg `json:"line" tool:"required"`
	Symbol string `json:"symbol" tool:"required,subject=quoted"`
}

// NewDefinition returns the definition tool over servers.
func NewDefinition(ws *Workspace, servers LanguageServers) Tool {
	return &navigate{ws: ws, servers: servers, Decl: Declare[navigateArgs]("definition", definitionDoc)}
}

// NewReferences returns the references tool over servers.
func NewReferences(ws *Workspace, servers LanguageServers) Tool {
	return &navigate{ws: ws, servers: servers, references: true, Decl: Declare[navigateArgs]("references", referencesDoc)}
}

func (t *navigate) Effect() Effect { return ReadOnly }

// Available reports whether a language server runs: package disclosure
// offers the tool to the model only then.
func (t *navigate) Available() bool { return t.servers.Running() }

// Needs says what the tool needs, for the notice that offers it.
func (t *navigate) Needs() string { return "a language server" }

func (t *navigate) Run(ctx context.Context, in Input) Result {
	name := t.Spec().Name
	var args navigateArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail(name+": bad arguments", "%v", err)
	}
	symbol := strings.TrimSpace(args.Symbol)
	summary := fmt.Sprintf("%s %q", name, symbol)
	if symbol == "" || strings.TrimSpace(args.Path) == "" || !args.Line.Set {
		return fail(summary+": missing arguments", `path, line and symbol are required, e.g. {"path":"main.go","line":12,"symbol":"parseConfig"}`)
	}
	abs, rel, err := t.ws.Resolve(args.Path, Read)
	if err != nil {
		return fail(summary+": refused", "%v", err)
	}
	summary += " in " + rel
	text, ok := t.ws.readText(abs)
	if !ok {
		return fail(summary+": cannot read", "cannot read %s: it must be a text file in the workspace", rel)
	}
	if !t.servers.Handles(abs) {
		return fail(summary+": no language server", "no language server runs for %s files; use grep or search_code to find %s", filepath.Ext(rel), symbol)
	}
	pos, where, found := findSymbol(text, args.Line.N, symbol)
	if !found {
		return fail(summary+": not on that line", "%s is not written on line %d of %s, nor near it. Give a line where it is written, as read_file or grep shows it", symbol, args.Line.N, rel)
	}
	var locs []lsp.Location
	if t.references {
		locs, err = t.servers.References(ctx, abs, pos)
	} else {
		locs, err = t.servers.Definition(ctx, abs, pos)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fail(summary+": cancelled", "cancelled")
	case err != nil:
		return fail(summary+": error", "the language server could not answer: %v. Use grep or search_code instead", err)
	}
	var b strings.Builder
	if where != "" {
		b.WriteString("(" + where + ")\n")
	}
	switch {
	case len(locs) == 0 && t.references:
		fmt.Fprintf(&b, "The language server knows no uses of %s.", symbol)
	case len(locs) == 0:
		fmt.Fprintf(&b, "The language server does not know where %s is defined (a builtin, or code it cannot see).", symbol)
	case t.references:
		fmt.Fprintf(&b, "%s is used in %s:\n", symbol, plural(len(locs), "place", "places"))
	default:
		fmt.Fprintf(&b, "%s is defined at:\n", symbol)
	}
	for i, l := range locs {
		if i == maxLocations {
			fmt.Fprintf(&b, "… and %d more\n", len(locs)-i)
			break
		}
		b.WriteString(t.location(l) + "\n")
	}
	return Result{Output: strings.TrimSuffix(b.String(), "\n"), Summary: fmt.Sprintf("%s: %s", summary, plural(len(locs), "place", "places"))}
}

// location renders a place as "path:line: text"; a file the model may not
// read shows without its text.
func (t *navigate) location(l lsp.Location) string {
	where := fmt.Sprintf("%s:%d:", t.ws.relOf(l.Path), l.Line)
	text, ok := t.ws.readText(l.Path)
	if !ok {
		return where + " (outside the workspace)"
	}
	line := lineSource(text)(l.Line)
	return where + " " + excerpt([]byte(line), 0)
}

// findSymbol finds symbol written as a whole word on line (1-based) of
// text, or on the nearest line within symbolSearch of it, and returns its
// position for the server, and a note when it was on another line. A
// qualified name (pkg.Func, Type::method) is found by its last part.
func findSymbol(text string, line int, symbol string) (pos lsp.Position, note string, ok bool) {
	lines := lineSource(text)
	name := symbol
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	for d := 0; d <= symbolSearch; d++ {
		for _, n := range []int{line - d, line + d} {
			l := lines(n)
			if at := wordIndex(l, name); at >= 0 {
				if n != line {
					note = fmt.Sprintf("%s is on line %d, not %d", symbol, n, line)
				}
				return lsp.Position{Line: n, Char: utf16Offset(l, at)}, note, true
			}
			if d == 0 {
				break
			}
		}
	}
	return lsp.Position{}, "", false
}

// wordIndex is the byte offset of name in line as a whole word, or -1.
func wordIndex(line, name string) int {
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for from := 0; ; {
		i := strings.Index(line[from:], name)
		if i < 0 || name == "" {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(name):])
		if !isWord(before) && !isWord(after) {
			return i
		}
		from = i + len(name)
	}
}
