package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/tools/lsp"
)

// TestEditsAreCheckedForSyntax: without any language server, an edit that
// breaks a file's syntax says so after "Edit applied.", with the line;
// one that leaves it parsing, or that fixes a mistake, says nothing more.
func TestEditsAreCheckedForSyntax(t *testing.T) {
	tests := []struct {
		lang, file, text string
		old, new         string // the breaking edit
		want             []string
	}{
		{"Go", "calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
			"\treturn a + b\n}", "\treturn a + b\n", []string{"calc.go:4:14: error: syntax error: missing \"}\"", "    return a + b"}},
		{"Python", "calc.py", "def add(a, b):\n    return a + b\n\n\nprint(add(1, 2))\n",
			"print(add(1, 2))", "print(add(1, 2)", []string{"calc.py:5:", "error: syntax error", "print(add(1, 2)"}},
		{"TypeScript", "calc.ts", "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
			"return a + b;", "return a + ;", []string{"calc.ts:2:", "error: syntax error", "return a + ;"}},
		{"Rust", "calc.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
			"pub fn add(a: i32, b: i32)", "pub fn add(a: i32, b: i32", []string{"calc.rs:1:", "error: syntax error", "pub fn add(a: i32, b: i32 -> i32 {"}},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			ws := editFixture(t, map[string]string{tc.file: tc.text}, tc.file)
			edit := NewEditFile(ws, nil)
			r := call(t, edit, editJSON(tc.file, tc.old, tc.new), 0)
			if r.IsError {
				t.Fatalf("the edit failed: %s", r.Output)
			}
			_, note, ok := strings.Cut(r.Output, "\nEdit applied. It introduced 1 error (syntax check):\n")
			if !ok {
				t.Fatalf("the result does not say the edit was applied and broke the syntax:\n%s", r.Output)
			}
			for _, w := range tc.want {
				if !strings.Contains(note, w) {
					t.Errorf("the note lacks %q:\n%s", w, note)
				}
			}
			if len(r.Diagnostics) != 1 || r.Diagnostics[0].Source != "syntax" {
				t.Errorf("Diagnostics = %+v, want the one syntax error", r.Diagnostics)
			}
			// An edit elsewhere leaves the old error where it was: nothing new.
			r = call(t, edit, editJSON(tc.file, firstLineOf(tc.text), firstLineOf(tc.text)+" "), 0)
			if strings.Contains(r.Output, "Edit applied.") || len(r.Diagnostics) > 0 {
				t.Errorf("an edit that broke nothing reports:\n%s", r.Output)
			}
			// The fix reports nothing.
			r = call(t, edit, editJSON(tc.file, tc.new, tc.old), 0)
			if r.IsError || strings.Contains(r.Output, "Edit applied.") {
				t.Errorf("the fix reports:\n%s", r.Output)
			}
		})
	}
}

func editJSON(path, old, new string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "old_string": old, "new_string": new})
	return string(b)
}

func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func TestANewFileIsCheckedForSyntax(t *testing.T) {
	ws := editFixture(t, nil)
	r := call(t, NewWriteFile(ws, nil), `{"path":"util/strings.go","content":"package util\n\nfunc Upper(s string) string {\n\treturn strings.ToUpper(s\n}\n"}`, 0)
	if !strings.HasPrefix(r.Output, "Created util/strings.go (5 lines).\nEdit applied. It introduced") {
		t.Errorf("output:\n%s", r.Output)
	}
	r = call(t, NewWriteFile(ws, nil), `{"path":"notes.md","content":"# Notes\n\n}}} not code {{{\n"}`, 0)
	if r.Output != "Created notes.md (3 lines)." {
		t.Errorf("a file without a grammar was checked: %q", r.Output)
	}
}

// fakeServers is a language server for .go files that reports what it is
// told to: diagnostics of the files before and after each change.
type fakeServers struct {
	before, after []lsp.Diagnostic
	err           error
	changed       []string
	opened        []string
	locs          []lsp.Location
	asked         []lsp.Position
}

func (f *fakeServers) Handles(path string) bool { return filepath.Ext(path) == ".go" }
func (f *fakeServers) Running() bool            { return true }
func (f *fakeServers) Opened(path string)       { f.opened = append(f.opened, path) }
func (f *fakeServers) Changed(_ context.Context, path, before, after string, existed bool) (lsp.Report, error) {
	f.changed = append(f.changed, path)
	return lsp.Report{Server: "fakels 1.0", Before: f.before, After: f.after}, f.err
}
func (f *fakeServers) Definition(_ context.Context, _ string, pos lsp.Position) ([]lsp.Location, error) {
	f.asked = append(f.asked, pos)
	return f.locs, f.err
}
func (f *fakeServers) References(_ context.Context, _ string, pos lsp.Position) ([]lsp.Location, error) {
	f.asked = append(f.asked, pos)
	return f.locs, f.err
}

func TestEditsReportTheServersNewDiagnostics(t *testing.T) {
	ws := editFixture(t, map[string]string{
		"calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
		"use.go":  "package calc\n\nvar x = Add(1, 2)\nvar y = sub(1)\n",
	}, "calc.go")
	calc, use := filepath.Join(ws.Root(), "calc.go"), filepath.Join(ws.Root(), "use.go")
	old := lsp.Diagnostic{Path: use, Line: 4, Char: 8, Severity: lsp.Error, Message: "undefined: sub"}
	srv := &fakeServers{
		before: []lsp.Diagnostic{old},
		after: []lsp.Diagnostic{
			old, // still there: not new
			{Path: use, Line: 3, Char: 8, Severity: lsp.Error, Message: "undefined: Add"},
			{Path: calc, Line: 3, Char: 5, Severity: lsp.Warning, Message: "Sum is unused\n  (detail)"},
			{Path: calc, Line: 1, Char: 0, Severity: lsp.Hint, Message: "a hint: not shown"},
		},
	}
	r := call(t, newEditFile(ws, nil, srv), editJSON("calc.go", "func Add(", "func Sum("), 0)
	_, note, ok := strings.Cut(r.Output, "\nEdit applied. It introduced 1 error and 1 warning (fakels):\n")
	if !ok {
		t.Fatalf("output:\n%s", r.Output)
	}
	want := "calc.go:3:6: warning: Sum is unused\n    func Sum(a, b int) int {\nuse.go:3:9: error: undefined: Add\n    var x = Add(1, 2)\nFix them with another edit."
	if note != want {
		t.Errorf("note:\n%s\nwant:\n%s", note, want)
	}
	if len(r.Diagnostics) != 2 || r.Diagnostics[1] != (Diagnostic{Path: "use.go", Line: 3, Col: 9, Severity: "error", Message: "undefined: Add", Source: "fakels", Excerpt: "var x = Add(1, 2)"}) {
		t.Errorf("Diagnostics = %+v", r.Diagnostics)
	}

	// A server that does not answer leaves the syntax check.
	srv.err = errors.New("gopls did not answer within 3s")
	r = call(t, newEditFile(ws, nil, srv), editJSON("calc.go", "func Sum(a, b int) int {", "func Sum(a, b int) int {{"), 0)
	if !strings.Contains(r.Output, "Edit applied. It introduced 1 error (syntax check):") {
		t.Errorf("output:\n%s", r.Output)
	}
}

func TestTheDiagnosticsNoteShowsAFew(t *testing.T) {
	var found []Diagnostic
	for i := range 6 {
		found = append(found, Diagnostic{Path: "a.go", Line: i + 1, Col: 1, Severity: "error", Message: fmt.Sprint("broken ", i)})
	}
	note := diagnosticsNote(found, "gopls")
	if !strings.Contains(note, "a.go:4:1: error: broken 3\n… and 2 more\nFix them") || strings.Contains(note, "broken 4") {
		t.Errorf("note:\n%s", note)
	}
}
