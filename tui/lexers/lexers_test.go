package lexers

import (
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"
)

// TestSameAsChroma checks the copy against chroma's own package: the same
// lexers under the same names and aliases, with the same configurations,
// the same choices by file name, MIME type and content, and the same
// tokens for code of the languages tern's users write most.
func TestSameAsChroma(t *testing.T) {
	if got, want := Names(true), chromalexers.Names(true); !slices.Equal(got, want) {
		t.Fatalf("names differ: %d here, %d in chroma; run go generate ./tui/lexers", len(got), len(want))
	}
	if got, want := Aliases(false), chromalexers.Aliases(false); !slices.Equal(got, want) {
		t.Errorf("aliases differ: %d here, %d in chroma", len(got), len(want))
	}
	for _, name := range chromalexers.Names(true) {
		ours, theirs := Get(name), chromalexers.Get(name)
		if ours == nil || !reflect.DeepEqual(ours.Config(), theirs.Config()) {
			t.Errorf("Get(%q): config differs from chroma's", name)
		}
	}
	for _, file := range []string{"main.go", "a.py", "index.html", "x.php", "t.erb", "README.md", "zone.db", "q.sql", "Makefile", "a.rs", "x.ts", "unknown.zzz"} {
		if !sameLexer(Match(file), chromalexers.Match(file)) {
			t.Errorf("Match(%q) differs", file)
		}
	}
	for _, mime := range []string{"text/x-go", "text/html", "application/json", "text/x-python"} {
		if !sameLexer(MatchMimeType(mime), chromalexers.MatchMimeType(mime)) {
			t.Errorf("MatchMimeType(%q) differs", mime)
		}
	}
	for _, text := range []string{
		"@ IN SOA ns.example.com. admin.example.com. 1 7200 3600 1209600 3600\n",
		"SELECT `name`, `id` FROM `users`;\n",
		"definition user {}\nrelation viewer: user\npermission view = viewer\n",
		"package main\n\nfunc main() {}\n",
		"#!/usr/bin/env python\nimport os\n",
		"<?php echo 'hi'; ?>\n",
	} {
		if !sameLexer(Analyse(text), chromalexers.Analyse(text)) {
			t.Errorf("Analyse(%q) differs", text)
		}
	}
	samples := map[string]string{
		"go":         "package main\n\nimport \"fmt\"\n\n// main says hi.\nfunc main() {\n\tfmt.Println(`hi`, 1+2.5i)\n}\n",
		"python":     "def f(x: int) -> str:\n    \"\"\"Doc.\"\"\"\n    return f'{x!r}'\n",
		"html":       "<html><script>var x = 1;</script><style>p { color: red }</style></html>\n",
		"markdown":   "# Title\n\n```go\nfunc f() {}\n```\n\n- item *em*\n",
		"php":        "<html><?php function f($a) { return $a . 'x'; } ?></html>\n",
		"erb":        "<p><%= @user.name %></p>\n",
		"rust":       "fn main() { let x: Vec<u8> = vec![1]; println!(\"{}\", x.len()); }\n",
		"typescript": "const f = async (x: number): Promise<string> => `${x}`;\n",
		"bash":       "for f in *.go; do echo \"$f\" | wc -l; done\n",
		"yaml":       "key: value\nlist:\n  - a\n  - {b: 1}\n",
		"rst":        ".. code-block:: python\n\n   print(1)\n",
		"mysql":      "SELECT `a` FROM `b` WHERE c = 1;\n",
	}
	for lang, code := range samples {
		if got, want := tokens(t, Get(lang), code), tokens(t, chromalexers.Get(lang), code); !slices.Equal(got, want) {
			t.Errorf("%s: tokens differ:\n%v\n%v", lang, got, want)
		}
	}
}

func sameLexer(a, b chroma.Lexer) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.DeepEqual(a.Config(), b.Config())
}

func tokens(t *testing.T, l chroma.Lexer, code string) []string {
	t.Helper()
	if l == nil {
		t.Fatal("no lexer")
	}
	it, err := chroma.Coalesce(l).Tokenise(nil, code)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for tok := it(); tok != chroma.EOF; tok = it() {
		out = append(out, tok.Type.String()+":"+tok.Value)
	}
	return out
}

// TestTernDoesNotLinkChromasLexers is why the package exists: a tern
// binary that linked chroma's lexers package would parse all of them at
// start.
func TestTernDoesNotLinkChromasLexers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ternhq/tern/cmd/tern").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/alecthomas/chroma/v2/lexers" {
			t.Fatal("cmd/tern links github.com/alecthomas/chroma/v2/lexers; use github.com/ternhq/tern/tui/lexers")
		}
	}
}
