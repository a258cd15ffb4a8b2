package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/internal/testenv"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// withServers gives tern the test's PATH, where it finds the language
// servers (the other tests' tern finds none), and a long wait for them:
// an edit returns as soon as its diagnostics are in, and a loaded machine
// must not fail the test.
func (f *fixture) withServers(files map[string]string) {
	f.t.Helper()
	f.env["PATH"] = os.Getenv("PATH")
	f.config("lsp_wait = \"2m\"\n")
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(text), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// toolResult is the last message of the i-th request: the result of the
// call the reply before it made.
func (f *fixture) toolResult(i int) string {
	f.t.Helper()
	reqs := f.srv.Requests()
	if i >= len(reqs) {
		f.t.Fatalf("only %d requests", len(reqs))
	}
	msgs := reqs[i].Messages
	return msgs[len(msgs)-1].Content
}

// toolEnds are the tool_end events of tern ask --json's output.
func toolEnds(t *testing.T, out string) []struct {
	Name        string
	Diagnostics []tools.Diagnostic
} {
	t.Helper()
	var ends []struct {
		Name        string
		Diagnostics []tools.Diagnostic
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type        string             `json:"type"`
			Name        string             `json:"name"`
			Diagnostics []tools.Diagnostic `json:"diagnostics"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		if ev.Type == "tool_end" {
			ends = append(ends, struct {
				Name        string
				Diagnostics []tools.Diagnostic
			}{ev.Name, ev.Diagnostics})
		}
	}
	return ends
}

// TestGoplsThroughAsk: a scripted model breaks a Go build by renaming a
// function another file calls, and the next request carries gopls's error
// after "Edit applied."; its fix reports nothing; definition and
// references, offered once gopls runs, answer from it. One session, one
// gopls.
func TestGoplsThroughAsk(t *testing.T) {
	testenv.Program(t, "gopls", testenv.LanguageServers)
	t.Parallel()
	f := newFixture(t)
	f.withServers(map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.22\n",
		"main.go":  "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greet(\"you\"))\n}\n",
		"greet.go": "package main\n\n// greet says hello.\nfunc greet(name string) string { return \"hello \" + name }\n",
	})
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"greet.go"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"greet.go","old_string":"func greet(","new_string":"func greeting("}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"greet.go","old_string":"func greeting(","new_string":"func greet("}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "definition", Args: `{"path":"main.go","line":6,"symbol":"greet"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "references", Args: `{"path":"greet.go","line":4,"symbol":"greet"}`}}},
		ollamatest.Reply{Content: "Done."},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--yes", "--json", "fix the greeting in greet.go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := f.srv.Requests()
	if got := toolNames(reqs[0]); slices.Contains(got, "definition") {
		t.Errorf("definition offered before gopls runs: %v", got)
	}
	if got := toolNames(reqs[1]); !slices.Contains(got, "definition") || !slices.Contains(got, "references") {
		t.Errorf("tools once greet.go was read = %v; want definition and references", got)
	}
	broke := f.toolResult(2)
	want := "\nEdit applied. It introduced 1 error (gopls):\nmain.go:6:14: error: undefined: greet\n    fmt.Println(greet(\"you\"))\nFix them with another edit."
	if !strings.HasPrefix(broke, "Edited greet.go: replaced 1 occurrence at line 4.\n") || !strings.HasSuffix(broke, want) {
		t.Errorf("the breaking edit's result:\n%s\nwant it to end with:%s", broke, want)
	}
	if fixed := f.toolResult(3); strings.Contains(fixed, "Edit applied.") {
		t.Errorf("the fix reports problems:\n%s", fixed)
	}
	if got, want := f.toolResult(4), "greet is defined at:\ngreet.go:4: func greet(name string) string { return \"hello \" + name }"; got != want {
		t.Errorf("definition:\n%s\nwant:\n%s", got, want)
	}
	if got, want := f.toolResult(5), "greet is used in 2 places:\ngreet.go:4: func greet(name string) string { return \"hello \" + name }\nmain.go:6: fmt.Println(greet(\"you\"))"; got != want {
		t.Errorf("references:\n%s\nwant:\n%s", got, want)
	}
	ends := toolEnds(t, out)
	if len(ends) != 5 || ends[1].Name != "edit_file" || len(ends[1].Diagnostics) != 1 || len(ends[2].Diagnostics) != 0 {
		t.Fatalf("tool_end events = %+v; want the first edit's one diagnostic", ends)
	}
	if got, want := ends[1].Diagnostics[0], (tools.Diagnostic{Path: "main.go", Line: 6, Col: 14, Severity: "error",
		Message: "undefined: greet", Source: "gopls", Excerpt: `fmt.Println(greet("you"))`}); got != want {
		t.Errorf("diagnostic = %+v, want %+v", got, want)
	}
}

// TestPyrightThroughAsk: a scripted model renames a Python variable and
// leaves a use under its old name; the next request carries pyright's
// error after "Edit applied.", and the fix reports nothing new.
func TestPyrightThroughAsk(t *testing.T) {
	testenv.Program(t, "pyright-langserver", testenv.LanguageServers)
	t.Parallel()
	f := newFixture(t)
	f.withServers(map[string]string{
		"app.py": "def main() -> None:\n    name = \"you\"\n    print(\"hello \" + name)\n",
	})
	f.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"app.py"}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"app.py","old_string":"    name = \"you\"","new_string":"    who = \"you\""}`}}},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"app.py","old_string":"\"hello \" + name","new_string":"\"hello \" + who"}`}}},
		ollamatest.Reply{Content: "Done."},
	)
	code, _, errOut := f.tern(t.Context(), "ask", "--yes", "fix the greeting in app.py")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	broke := f.toolResult(2)
	if !strings.HasSuffix(broke, "\nEdit applied. It introduced 1 error (pyright-langserver):\napp.py:3:22: error: \"name\" is not defined\n    print(\"hello \" + name)\nFix them with another edit.") {
		t.Errorf("the breaking edit's result:\n%s", broke)
	}
	if fixed := f.toolResult(3); strings.Contains(fixed, "Edit applied.") {
		t.Errorf("the fix reports problems:\n%s", fixed)
	}
	if !strings.Contains(errOut, "✓ app.py: +1 -1 · 1 error\n") {
		t.Errorf("tern ask's tool line does not count the error:\n%s", errOut)
	}
}

// TestBrokenLanguageServersDoNotStallTheTurn: a server that never answers
// and one that dies at once leave edits to the syntax check, say so, and
// the turn ends as usual. No real server is needed.
func TestBrokenLanguageServersDoNotStallTheTurn(t *testing.T) {
	t.Parallel()
	for name, config := range map[string]string{
		"hangs": "lsp_wait = \"300ms\"\n\n[lsp.go]\ncommand = [\"sleep\", \"600\"]\n",
		"dies":  "[lsp.go]\ncommand = [\"sh\", \"-c\", \"echo no workspace here >&2; exit 3\"]\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.withServers(nil)
			f.config(config)
			f.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"main.go"}`}}},
				ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "edit_file", Args: `{"path":"main.go","old_string":"println(\"hi\") }","new_string":"println(\"hi\")"}`}}},
				ollamatest.Reply{Content: "Done."},
			)
			code, out, errOut := f.tern(t.Context(), "ask", "--yes", "fix main.go")
			if code != 0 || out != "Done.\n" {
				t.Fatalf("exit %d, stdout %q: %s", code, out, errOut)
			}
			if got := f.toolResult(2); !strings.Contains(got, "\nEdit applied. It introduced 1 error (syntax check):\nmain.go:3:") {
				t.Errorf("the edit's result:\n%s", got)
			}
			if name == "dies" && !strings.Contains(errOut, "tern: language server sh did not start: exit status 3: no workspace here; tern starts it again when it is next needed") {
				t.Errorf("stderr does not say the server died:\n%s", errOut)
			}
		})
	}
}

// TestDoctorListsLanguageServers: doctor starts each server it finds and
// says how it went; the others, how to get them.
func TestDoctorListsLanguageServers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'gopls: no go command on PATH' >&2\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "gopls"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.env["PATH"] = bin
	code, out, _ := f.tern(t.Context(), "doctor")
	if code != 0 {
		t.Errorf("exit %d: a server found on PATH that does not start is no reason to fail", code)
	}
	for _, want := range []string{
		"LSP         · go: gopls did not start: exit status 2: gopls: no go command on PATH\n" +
			"              go install golang.org/x/tools/gopls@latest, or switch it off: [lsp.go] enabled = false in your config\n",
		"LSP         · not on PATH: clangd, pyright-langserver, rust-analyzer, typescript-language-server\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	f.config("[lsp.go]\ncommand = [\"gopls\", \"serve\"]\n")
	code, out, _ = f.tern(t.Context(), "doctor")
	if want := "LSP         ✗ go: gopls did not start: exit status 2: gopls: no go command on PATH\n" +
		"              fix it, or switch it off: [lsp.go] enabled = false in your config\n"; code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d (want 1: the server you configured does not start); doctor output lacks %q:\n%s", code, want, out)
	}
	f.config("lsp_enabled = false\n")
	if _, out, _ = f.tern(t.Context(), "doctor"); !strings.Contains(out, "LSP         · off (lsp_enabled = false); edits are checked for syntax only\n") {
		t.Errorf("doctor output:\n%s", out)
	}
}
