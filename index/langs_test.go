package index

import (
	"fmt"
	"strings"
	"testing"
)

// editorRepo is a small editor: a few Rust files of real code beside many
// small tree-sitter query files, one per language it highlights, that
// outnumber them ten to one. Every query file names the words of the
// question the Rust code answers.
func editorRepo() map[string]string {
	files := map[string]string{
		"Cargo.toml": "[package]\nname = \"ed\"\n",
		"src/highlight.rs": `use crate::syntax::Syntax;

/// Highlighter colours a document: it runs the language's highlight
/// query over the syntax tree and maps each capture to a style.
pub struct Highlighter {
    syntax: Syntax,
    styles: Vec<Style>,
}

impl Highlighter {
    /// highlight_keywords colours the keywords of the language: every
    /// capture named keyword, keyword.function or keyword.return.
    pub fn highlight_keywords(&self, doc: &Document) -> Vec<Span> {
        let mut spans = Vec::new();
        for capture in self.syntax.captures(doc, "keyword") {
            spans.push(Span::new(capture.range, self.styles[capture.index]));
        }
        spans
    }

    /// Loads the highlight query of a language from the runtime.
    pub fn load_query(&mut self, lang: &str) -> Result<(), Error> {
        let text = std::fs::read_to_string(runtime_path(lang, "highlights.scm"))?;
        self.syntax.set_query(&text)
    }
}
`,
		"src/syntax.rs": `/// Syntax holds a document's tree and the queries run over it.
pub struct Syntax {
    tree: Tree,
    query: Option<Query>,
}

impl Syntax {
    /// Runs the query and returns the captures named name.
    pub fn captures(&self, doc: &Document, name: &str) -> Vec<Capture> {
        let mut cursor = QueryCursor::new();
        cursor.matches(self.query.as_ref().unwrap(), self.tree.root_node(), doc.text())
            .flat_map(|m| m.captures)
            .filter(|c| c.name == name)
            .collect()
    }
}
`,
		"src/main.rs": "fn main() {\n    let args = std::env::args().collect::<Vec<_>>();\n    ed::run(args);\n}\n",
	}
	var doc strings.Builder
	doc.WriteString("/// Document is the text being edited.\npub struct Document {\n    text: Rope,\n}\n\nimpl Document {\n")
	for _, op := range strings.Fields("insert delete replace undo redo save reload indent dedent join split") {
		fmt.Fprintf(&doc, "    /// %s changes the text and records the change for undo.\n", op)
		fmt.Fprintf(&doc, "    pub fn %s(&mut self, at: usize) {\n        self.text.%s(at);\n    }\n\n", op, op)
	}
	doc.WriteString("}\n")
	files["src/document.rs"] = doc.String()
	for _, lang := range strings.Fields("rust go python c cpp java ruby bash lua zig nim toml yaml json html css " +
		"haskell ocaml elixir erlang kotlin swift scala dart julia perl php sql make cmake nix") {
		files["runtime/queries/"+lang+"/highlights.scm"] = fmt.Sprintf(
			"; highlight keywords of %s\n(keyword) @keyword\n", lang)
	}
	return files
}

// The main language is the one with the most code, not the most files: a
// Rust editor whose tree-sitter query files outnumber its Rust files ten
// to one is a Rust repository, and a question about highlighting keywords
// finds the Rust code before the queries.
func TestMainLanguageIsTheLanguageOfMostCode(t *testing.T) {
	ix := indexRepo(t, editorRepo())
	cs := corpusOf(t, ix)
	if w := cs.langWeight(0, "rust", query{}); w != 1 {
		t.Errorf("rust weighs %.2f, want 1", w)
	}
	if w := cs.langWeight(0, "scheme", query{}); w >= 1 {
		t.Errorf("scheme weighs %.2f, want less than 1", w)
	}
	if files := searchFiles(t, ix, "highlight the keywords", Filter{}); len(files) == 0 || files[0] != "src/highlight.rs" {
		t.Errorf("files %v, want src/highlight.rs first", files)
	}
}

// A repository whose root is no project, but holds a Go service and a
// TypeScript web app side by side, weighs each project's language fully
// within it; a repository whose root is a Go project keeps its web UI a
// minor language.
func TestSeveralProjectsWeighTheirOwnLanguages(t *testing.T) {
	goCode := strings.Repeat("// Serve answers the requests of the service.\nfunc Serve() {}\n", 40)
	tsCode := "// render draws the page.\nexport function render() {}\n"
	for _, tt := range []struct {
		name    string
		files   map[string]string
		tsFull  bool
		tsFiles []string
	}{
		{"side by side", map[string]string{
			"README.md":                 "# Service and web app\n",
			"backend/go.mod":            "module example.com/backend\n",
			"backend/server.go":         "package backend\n\n" + goCode,
			"web/package.json":          `{"name": "web"}`,
			"web/src/render.ts":         tsCode,
			"web/scripts/release.sh":    "#!/bin/sh\nnpm publish\n",
			"tools/generate/gen.py":     "print('generate')\n",
			"backend/scripts/deploy.sh": "#!/bin/sh\n" + strings.Repeat("echo deploy\n", 3),
		}, true, []string{"web/src/render.ts"}},
		{"one project with a web ui", map[string]string{
			"go.mod":               "module example.com/app\n",
			"server.go":            "package app\n\n" + goCode,
			"web/ui/package.json":  `{"name": "ui"}`,
			"web/ui/src/render.ts": tsCode,
		}, false, []string{"web/ui/src/render.ts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix := indexRepo(t, tt.files)
			cs, ids := corpusOf(t, ix), fileIDs(t, ix)
			for _, p := range tt.tsFiles {
				if w := cs.langWeight(ids[p], "typescript", query{}); (w == 1) != tt.tsFull {
					t.Errorf("%s weighs %.2f, want full weight %v", p, w, tt.tsFull)
				}
			}
			if w := cs.langWeight(0, "go", query{}); w != 1 {
				t.Errorf("go weighs %.2f, want 1", w)
			}
		})
	}
}

// Code in a third-party tree does not decide what the repository is
// written in, however much of it there is.
func TestThirdPartyCodeIsNotTheMainLanguage(t *testing.T) {
	cs := corpusOf(t, indexRepo(t, map[string]string{
		"main.go":                  "package main\n\n// main starts the service.\nfunc main() { serve() }\n",
		"third_party/lib/lib.c":    strings.Repeat("/* a vendored library */\nint f(void) { return 0; }\n", 50),
		"third_party/lib/README":   "A copy of lib.\n",
		"internal/serve/serve.go":  "package serve\n\n// Serve answers requests.\nfunc Serve() {}\n",
		"internal/serve/handle.go": "package serve\n\n// Handle answers one request.\nfunc Handle() {}\n",
	}))
	if w := cs.langWeight(0, "go", query{}); w != 1 {
		t.Errorf("go weighs %.2f, want 1", w)
	}
	if w := cs.langWeight(0, "c", query{}); w >= 1 {
		t.Errorf("the vendored c weighs %.2f, want less than 1", w)
	}
}

// fileIDs maps the indexed files' paths to their ids.
func fileIDs(t *testing.T, ix *Index) map[string]int64 {
	t.Helper()
	rows, err := ix.db.QueryContext(t.Context(), `SELECT id, path FROM files`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]int64{}
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			t.Fatal(err)
		}
		ids[p] = id
	}
	return ids
}
