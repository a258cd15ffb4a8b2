package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/internal/testenv"
)

// realWait is the tests' wait: far more than a warm server needs, so
// that a loaded machine does not fail them; an edit returns as soon as
// the diagnostics are in.
const realWait = 2 * time.Minute

// fixture writes files (name → text) into a temporary workspace.
func fixture(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, path, text)
	}
	return root
}

// realManager runs the default server for language in root.
func realManager(t *testing.T, root, language string) *Manager {
	t.Helper()
	servers, err := Resolve(nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(servers, func(s Server) bool { return s.Name == language })
	if i < 0 || !servers[i].Runs() {
		t.Fatalf("no %s server found, though its program is on PATH", language)
	}
	m := NewManager(Options{Root: root, Wait: realWait, Servers: servers[i : i+1]})
	t.Cleanup(m.Close)
	return m
}

// edit replaces old with new in the file at path, on disk and in the
// server, and returns the server's report.
func edit(t *testing.T, m *Manager, path, old, new string) Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := string(b)
	if !strings.Contains(before, old) {
		t.Fatalf("%s has no %q", path, old)
	}
	after := strings.Replace(before, old, new, 1)
	write(t, path, after)
	rep, err := m.Changed(t.Context(), path, before, after, true)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func errorsIn(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, filepath.Base(d.Path)+":"+d.Message)
		}
	}
	slices.Sort(out)
	return out
}

func TestGopls(t *testing.T) {
	testenv.Program(t, "gopls", testenv.LanguageServers)
	root := fixture(t, map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.22\n",
		"main.go":  "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greet(\"you\"))\n}\n",
		"greet.go": "package main\n\n// greet says hello.\nfunc greet(name string) string { return \"hello \" + name }\n",
	})
	m := realManager(t, root, "go")
	greet, main := filepath.Join(root, "greet.go"), filepath.Join(root, "main.go")
	m.Opened(main)

	t.Run("a rename breaks the caller in another file", func(t *testing.T) {
		rep := edit(t, m, greet, "func greet(", "func greeting(")
		if got := errorsIn(rep.Before); len(got) > 0 {
			t.Errorf("errors before the edit: %v", got)
		}
		if got, want := errorsIn(rep.After), []string{"main.go:undefined: greet"}; !slices.Equal(got, want) {
			t.Errorf("errors after = %v, want %v", got, want)
		}
		if !strings.HasPrefix(rep.Server, "gopls") {
			t.Errorf("server = %q, want gopls", rep.Server)
		}
	})
	t.Run("the fix leaves no error", func(t *testing.T) {
		rep := edit(t, m, greet, "func greeting(", "func greet(")
		if got := errorsIn(rep.Before); len(got) != 1 {
			t.Errorf("errors before the fix = %v, want the broken call", got)
		}
		if got := errorsIn(rep.After); len(got) > 0 {
			t.Errorf("errors after the fix: %v", got)
		}
	})
	t.Run("definition", func(t *testing.T) {
		locs, err := m.Definition(t.Context(), main, Position{Line: 6, Char: strings.Index("\tfmt.Println(greet(\"you\"))", "greet")})
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 || locs[0].Path != greet || locs[0].Line != 4 {
			t.Errorf("definition = %+v, want greet.go line 4", locs)
		}
	})
	t.Run("references", func(t *testing.T) {
		locs, err := m.References(t.Context(), greet, Position{Line: 4, Char: len("func ")})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range locs {
			got = append(got, filepath.Base(l.Path)+":"+strconv.Itoa(l.Line))
		}
		slices.Sort(got)
		if want := []string{"greet.go:4", "main.go:6"}; !slices.Equal(got, want) {
			t.Errorf("references = %v, want %v", got, want)
		}
	})
}

func TestPyright(t *testing.T) {
	testenv.Program(t, "pyright-langserver", testenv.LanguageServers)
	root := fixture(t, map[string]string{
		"app.py":   "from greet import greet\n\n\ndef main() -> None:\n    name = \"you\"\n    print(greet(name))\n",
		"greet.py": "def greet(name: str) -> str:\n    return \"hello \" + name\n",
	})
	m := realManager(t, root, "python")
	app, greet := filepath.Join(root, "app.py"), filepath.Join(root, "greet.py")
	m.Opened(app)

	t.Run("a renamed variable used under its old name", func(t *testing.T) {
		rep := edit(t, m, app, "    name = \"you\"", "    who = \"you\"")
		if got := errorsIn(rep.Before); len(got) > 0 {
			t.Errorf("errors before the edit: %v", got)
		}
		if got, want := errorsIn(rep.After), []string{`app.py:"name" is not defined`}; !slices.Equal(got, want) {
			t.Errorf("errors after = %v, want %v", got, want)
		}
	})
	t.Run("the fix leaves no error", func(t *testing.T) {
		rep := edit(t, m, app, "print(greet(name))", "print(greet(who))")
		if got := errorsIn(rep.After); len(got) > 0 {
			t.Errorf("errors after the fix: %v", got)
		}
	})
	t.Run("definition", func(t *testing.T) {
		locs, err := m.Definition(t.Context(), app, Position{Line: 6, Char: strings.Index("    print(greet(who))", "greet")})
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 || locs[0].Path != greet || locs[0].Line != 1 {
			t.Errorf("definition = %+v, want greet.py line 1", locs)
		}
	})
}
