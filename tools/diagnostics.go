package tools

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ternhq/tern/tools/lsp"
)

// Diagnostic is a problem in a file that an edit introduced: a syntax
// error, or an error or warning of the language's server.
type Diagnostic struct {
	// Path is relative to the workspace root (absolute outside it).
	Path string `json:"path"`
	// Line and Col are 1-based; Col counts characters.
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Source is what found it: "syntax", or the server ("gopls").
	Source string `json:"source"`
	// Excerpt is the line, trimmed.
	Excerpt string `json:"excerpt,omitempty"`
}

// LanguageServers are a session's language servers, as the file tools use
// them; package tools/lsp's Manager is one.
type LanguageServers interface {
	// Handles reports whether a server handles the file at path.
	Handles(path string) bool
	// Running reports whether a server runs or is starting.
	Running() bool
	// Opened says the model read the file at path: its server starts and
	// opens it, in the background.
	Opened(path string)
	// Changed tells the server the file at path went from before (which
	// did not exist unless existed) to after, and returns what it reports
	// before and after, waiting no longer than its wait.
	Changed(ctx context.Context, path, before, after string, existed bool) (lsp.Report, error)
	// Definition and References answer for the symbol at pos in the file
	// at path.
	Definition(ctx context.Context, path string, pos lsp.Position) ([]lsp.Location, error)
	References(ctx context.Context, path string, pos lsp.Position) ([]lsp.Location, error)
}

// shownDiagnostics is how many new problems an edit's result lists: a few
// say that something broke and where; the rest cost the window more than
// they tell.
const shownDiagnostics = 4

// checker finds the problems an edit brought into the file it changed,
// and into the files that use it: with the language's server when one
// runs and answers in time, else with the tree-sitter grammar, which
// needs no process and so always runs.
type checker struct {
	ws      *Workspace
	servers LanguageServers // nil: syntax only
}

// check returns what to append to an edit's result, "" when the edit
// introduced nothing, and the problems it introduced. f is the file as it
// was; after is what it is now.
func (c checker) check(ctx context.Context, f target, after string) (string, []Diagnostic) {
	if c.servers != nil && c.servers.Handles(f.abs) {
		rep, err := c.servers.Changed(ctx, f.abs, f.content, after, f.exists)
		if err == nil {
			found := c.introducedByServer(rep, f, after)
			return diagnosticsNote(found, serverName(rep.Server)), found
		}
	}
	now, ok := syntaxErrors(f.rel, after)
	if !ok {
		return "", nil
	}
	var old []Diagnostic
	if f.exists {
		old, _ = syntaxErrors(f.rel, f.content)
	}
	found := introduced(old, now)
	return diagnosticsNote(found, "syntax check"), found
}

// serverName is the server's name without its version: "gopls".
func serverName(info string) string {
	name, _, _ := strings.Cut(info, " ")
	return name
}

// introducedByServer turns the server's report into the errors and
// warnings the edit introduced, across every file it reported on.
func (c checker) introducedByServer(rep lsp.Report, f target, after string) []Diagnostic {
	files := map[string][2]func(int) string{} // path → lines before, after
	linesOf := func(path string) [2]func(int) string {
		if l, ok := files[path]; ok {
			return l
		}
		var l [2]func(int) string
		if path == f.abs {
			l = [2]func(int) string{lineSource(f.content), lineSource(after)}
		} else {
			text, _ := c.ws.readText(path) // unchanged by the edit
			src := lineSource(text)
			l = [2]func(int) string{src, src}
		}
		files[path] = l
		return l
	}
	convert := func(ds []lsp.Diagnostic, when int) []Diagnostic {
		var out []Diagnostic
		for _, d := range ds {
			if d.Severity != lsp.Error && d.Severity != lsp.Warning {
				continue
			}
			line := linesOf(d.Path)[when](d.Line)
			out = append(out, Diagnostic{Path: c.ws.relOf(d.Path), Line: d.Line, Col: charCol(line, d.Char),
				Severity: d.Severity.String(), Message: firstLine(d.Message), Source: serverName(rep.Server), Excerpt: excerpt([]byte(line), 0)})
		}
		return out
	}
	found := introduced(convert(rep.Before, 0), convert(rep.After, 1))
	// The edited file first, then the others, each by line.
	slices.SortStableFunc(found, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(boolInt(a.Path != f.rel), boolInt(b.Path != f.rel)),
			cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return found
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// introduced returns the problems of now that were not in old: a problem
// is the same when its file, severity and message are, and so is the text
// of its line, wherever the edit moved it. Of several alike, the extra
// ones are new. Both lists carry their lines' text as Excerpt.
func introduced(old, now []Diagnostic) []Diagnostic {
	key := func(d Diagnostic) string {
		return d.Path + "\x00" + d.Severity + "\x00" + d.Message + "\x00" + d.Excerpt
	}
	had := map[string]int{}
	for _, d := range old {
		had[key(d)]++
	}
	var out []Diagnostic
	for _, d := range now {
		if k := key(d); had[k] > 0 {
			had[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// diagnosticsNote is what an edit's result says of the problems it
// introduced. It begins by saying the edit was applied: models otherwise
// read a list of errors as a failed edit and make it again.
func diagnosticsNote(found []Diagnostic, by string) string {
	if len(found) == 0 {
		return ""
	}
	errs := 0
	for _, d := range found {
		if d.Severity == "error" {
			errs++
		}
	}
	var what []string
	if errs > 0 {
		what = append(what, plural(errs, "error", "errors"))
	}
	if w := len(found) - errs; w > 0 {
		what = append(what, plural(w, "warning", "warnings"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Edit applied. It introduced %s (%s):\n", strings.Join(what, " and "), by)
	for i, d := range found {
		if i == shownDiagnostics {
			fmt.Fprintf(&b, "… and %d more\n", len(found)-i)
			break
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s\n", d.Path, d.Line, d.Col, d.Severity, d.Message)
		if d.Excerpt != "" {
			fmt.Fprintf(&b, "    %s\n", d.Excerpt)
		}
	}
	if errs > 0 {
		b.WriteString("Fix them with another edit.")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// lineSource returns the lines of text by 1-based number ("" past the
// end).
func lineSource(text string) func(int) string {
	var lines []string
	return func(n int) string {
		if lines == nil {
			lines = strings.Split(text, "\n")
		}
		if n < 1 || n > len(lines) {
			return ""
		}
		return strings.TrimSuffix(lines[n-1], "\r")
	}
}

// firstLine is the first line of a message (rust-analyzer and pyright
// add indented detail below it).
func firstLine(msg string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return strings.TrimSpace(first)
}

// charCol is the 1-based character column of the UTF-16 offset u16 in
// line.
func charCol(line string, u16 int) int {
	col, n := 1, 0
	for _, r := range line {
		if n >= u16 {
			break
		}
		n += utf16.RuneLen(r)
		col++
	}
	return col
}

// utf16Offset is the UTF-16 offset of byte offset b in line.
func utf16Offset(line string, b int) int {
	n := 0
	for i, r := range line {
		if i >= b {
			break
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// readText reads the text of a file the workspace lets the model read:
// "" and false for anything else (ignored, outside it, binary, huge).
func (w *Workspace) readText(abs string) (string, bool) {
	if !w.allowed(abs, Read) {
		return "", false
	}
	if rules, inRoot := w.area(abs); inRoot && rules.Ignored(w.relOf(abs), false) {
		return "", false
	}
	f, info, err := w.openRegular(abs)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if info.Size() > maxChangeBytes {
		return "", false
	}
	b, err := io.ReadAll(f)
	if err != nil || !utf8.Valid(b) || looksBinary(b[:min(len(b), sniffSize)]) {
		return "", false
	}
	return string(b), true
}
