package tools

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/tools/lsp"
)

func TestDefinitionAndReferences(t *testing.T) {
	ws := editFixture(t, map[string]string{
		"app/main.go":  "package main\n\nfunc main() {\n\tfmt.Println(greet(\"ünï\"), greet(\"x\"))\n}\n",
		"app/greet.go": "package main\n\nfunc greet(name string) string { return name }\n",
	})
	greet := filepath.Join(ws.Root(), "app", "greet.go")
	outside := filepath.Join(t.TempDir(), "print.go")
	srv := &fakeServers{locs: []lsp.Location{{Path: greet, Line: 3, Char: 5}, {Path: outside, Line: 12}}}
	def, refs := NewDefinition(ws, srv), NewReferences(ws, srv)
	runCases(t, def, []toolCase{
		{name: "found", args: `{"path":"app/main.go","line":4,"symbol":"greet"}`,
			want:    []string{"greet is defined at:\napp/greet.go:3: func greet(name string) string { return name }\n" + outside + ":12: (outside the workspace)"},
			summary: `definition "greet" in app/main.go: 2 places`},
		{name: "a line off", args: `{"path":"app/main.go","line":"3","symbol":"greet"}`,
			want: []string{"(greet is on line 4, not 3)\ngreet is defined at:"}},
		{name: "qualified", args: `{"path":"app/main.go","line":4,"symbol":"fmt.Println"}`, want: []string{"fmt.Println is defined at:"}},
		{name: "not there", args: `{"path":"app/main.go","line":1,"symbol":"name"}`, isError: true,
			want: []string{"name is not written on line 1 of app/main.go, nor near it"}},
		{name: "part of a word", args: `{"path":"app/main.go","line":4,"symbol":"gree"}`, isError: true},
		{name: "no server", args: `{"path":"docs/notes with spaces.md","line":1,"symbol":"Notes"}`, isError: true,
			want: []string{"no language server runs for .md files; use grep or search_code"}},
		{name: "outside", args: `{"path":"/etc/passwd","line":1,"symbol":"root"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "no line", args: `{"path":"app/main.go","symbol":"greet"}`, isError: true, want: []string{"path, line and symbol are required"}},
	})
	// The position asked: the first greet on line 4, in UTF-16 units.
	if want := (lsp.Position{Line: 4, Char: strings.Index("\tfmt.Println(greet(", "greet")}); srv.asked[0] != want {
		t.Errorf("asked at %+v, want %+v", srv.asked[0], want)
	}
	srv.locs = nil
	runCases(t, refs, []toolCase{
		{name: "none", args: `{"path":"app/greet.go","line":3,"symbol":"greet"}`, want: []string{"The language server knows no uses of greet."}},
	})
	srv.locs = slices.Repeat([]lsp.Location{{Path: greet, Line: 3}}, 40)
	runCases(t, refs, []toolCase{
		{name: "many", args: `{"path":"app/greet.go","line":3,"symbol":"greet"}`, want: []string{"greet is used in 40 places:", "… and 10 more"}},
	})
}

func TestReadingAFileOpensItInItsServer(t *testing.T) {
	ws := editFixture(t, nil)
	srv := &fakeServers{}
	call(t, newReadFile(ws, srv), `{"path":"main.go"}`, 0)
	if want := []string{filepath.Join(ws.Root(), "main.go")}; !slices.Equal(srv.opened, want) {
		t.Errorf("opened %v, want %v", srv.opened, want)
	}
}
