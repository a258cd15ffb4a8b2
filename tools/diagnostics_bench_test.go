package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/tools/lsp"
)

// A realistic fixture: code tern was not tuned on (the Go standard
// library's encoding/csv as a module of its own; CPython's json decoder),
// and the mistakes small models make in it.
type realFixture struct {
	name   string // the server's language
	files  map[string]string
	edit   string // the file edited
	breaks []breakingEdit
}

// breakingEdit is a mistake: old becomes new in the edited file.
type breakingEdit struct{ what, old, new string }

func csvFixture(b *testing.B) realFixture {
	b.Helper()
	dir := filepath.Join(runtime.GOROOT(), "src", "encoding", "csv")
	files := map[string]string{"go.mod": "module example.com/csv\n\ngo 1.22\n"}
	for _, name := range []string{"reader.go", "writer.go"} {
		text, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Skipf("the Go source tree is not there: %v", err)
		}
		files[name] = string(text)
	}
	return realFixture{name: "go", files: files, edit: "reader.go", breaks: []breakingEdit{
		{"a renamed method its callers still use", "func (r *Reader) readRecord(", "func (r *Reader) readRow("},
		{"a misspelt field", "recLine := r.numLine // Starting line", "recLine := r.numLines // Starting line"},
		{"an import removed that is used", "\t\"unicode\"\n\t\"unicode/utf8\"\n", "\t\"unicode\"\n"},
		{"a variable declared and not used", "\tif r.ReuseRecord {\n", "\tcount := 0\n\tif r.ReuseRecord {\n"},
		{"a brace dropped", "func (e *ParseError) Unwrap() error { return e.Err }", "func (e *ParseError) Unwrap() error { return e.Err"},
		{"an argument left out", "\t\trecord, err := r.readRecord(nil)\n", "\t\trecord, err := r.readRecord()\n"},
	}}
}

func jsonFixture(b *testing.B) realFixture {
	b.Helper()
	matches, _ := filepath.Glob("/usr/lib/python3*/json/decoder.py")
	if len(matches) == 0 {
		b.Skip("no CPython json/decoder.py on this machine")
	}
	text, err := os.ReadFile(matches[0])
	if err != nil {
		b.Skip(err)
	}
	return realFixture{name: "python", files: map[string]string{"decoder.py": string(text)}, edit: "decoder.py", breaks: []breakingEdit{
		{"a renamed function still used", "def py_scanstring(s, end", "def scanstring_py(s, end"},
		{"a renamed variable used under its old name", "    values = []\n", "    vals = []\n"},
		{"an import removed that is used", "import re\n\nfrom json import scanner", "from json import scanner"},
		{"a colon dropped", "    def __reduce__(self):", "    def __reduce__(self)"},
		{"an argument left out", "uni = _decode_uXXXX(s, end)", "uni = _decode_uXXXX(s)"},
	}}
}

// benchWorkspace is a workspace holding f's files alone, its edited file
// read.
func benchWorkspace(b *testing.B, f realFixture) *Workspace {
	b.Helper()
	root := b.TempDir()
	writeFiles(b, root, f.files)
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	ws.reads.mark(filepath.Join(ws.Root(), f.edit))
	return ws
}

// serversFor runs the default server of language in root, or skips.
func serversFor(b *testing.B, root, language string) *lsp.Manager {
	b.Helper()
	servers, err := lsp.Resolve(nil, true, nil)
	if err != nil {
		b.Fatal(err)
	}
	i := slices.IndexFunc(servers, func(s lsp.Server) bool { return s.Name == language })
	if !servers[i].Runs() {
		testenv.Missing(b, "the "+language+" language server", testenv.LanguageServers)
	}
	m := lsp.NewManager(lsp.Options{Root: root, Servers: servers[i : i+1], Wait: time.Minute})
	b.Cleanup(m.Close)
	return m
}

// BenchmarkDiagnosticsTokens measures what the check after an edit costs
// the window: each realistic mistake is made with edit_file, the note the
// result gains is counted (cl100k tokens), and the mistake is undone,
// which must add nothing. tokens/edit is the mean over the mistakes, with
// the language server and with the syntax check alone; max-tokens the
// largest note.
func BenchmarkDiagnosticsTokens(b *testing.B) {
	counter, err := budget.NewCounter()
	if err != nil {
		b.Fatal(err)
	}
	for _, fx := range []func(*testing.B) realFixture{csvFixture, jsonFixture} {
		for _, withServer := range []bool{true, false} {
			probe := fx(b)
			name := probe.name + "/syntax"
			if withServer {
				name = probe.name + "/server"
			}
			b.Run(name, func(b *testing.B) {
				f := fx(b)
				ws := benchWorkspace(b, f)
				var servers LanguageServers
				if withServer {
					m := serversFor(b, ws.Root(), f.name)
					m.Opened(filepath.Join(ws.Root(), f.edit))
					servers = m
				}
				edit := newEditFile(ws, nil, servers)
				var total, most, found, edits int
				for b.Loop() {
					for _, e := range f.breaks {
						r := call(b, edit, editJSON(f.edit, e.old, e.new), 0)
						if r.IsError {
							b.Fatalf("%s: %s", e.what, r.Output)
						}
						_, note, _ := strings.Cut(r.Output, "\nEdit applied.")
						n := 0
						if note != "" {
							n = counter.Count("Edit applied." + note)
						}
						if edits < len(f.breaks) {
							b.Logf("%s: %d tokens, %d problems", e.what, n, len(r.Diagnostics))
						}
						total, most, found, edits = total+n, max(most, n), found+len(r.Diagnostics), edits+1
						if undo := call(b, edit, editJSON(f.edit, e.new, e.old), 0); undo.IsError || strings.Contains(undo.Output, "Edit applied.") {
							b.Fatalf("undoing %s reports problems:\n%s", e.what, undo.Output)
						}
					}
				}
				b.ReportMetric(float64(total)/float64(edits), "tokens/edit")
				b.ReportMetric(float64(most), "max-tokens")
				b.ReportMetric(float64(found)/float64(edits), "problems/edit")
			})
		}
	}
}

// BenchmarkFirstDiagnostics measures the time from a session's first read
// of a file (which starts the server, in the background) to the
// diagnostics of its first edit: the server's start, its load of the
// workspace, and the check of the edit.
func BenchmarkFirstDiagnostics(b *testing.B) {
	for _, fx := range []func(*testing.B) realFixture{csvFixture, jsonFixture} {
		b.Run(fx(b).name, func(b *testing.B) {
			f := fx(b)
			ws := benchWorkspace(b, f)
			path := filepath.Join(ws.Root(), f.edit)
			e := f.breaks[0]
			before := f.files[f.edit]
			after := strings.Replace(before, e.old, e.new, 1)
			for b.Loop() {
				m := serversFor(b, ws.Root(), f.name)
				m.Opened(path)
				rep, err := m.Changed(b.Context(), path, before, after, true)
				if err != nil || len(rep.After) == 0 {
					b.Fatalf("no diagnostics (%v)", err)
				}
				m.Close()
			}
		})
	}
}
