package index

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestNaturalLanguageQueriesFindTheCode(t *testing.T) {
	tests := []struct {
		repo, query, want string
	}{
		// Stemming: "sniffed" finds sniff; the test, changelog and golden
		// file restate the words but are not where the code is.
		{"go", "where is the content type sniffed", "sniff.go"},
		{"go", "where is ReadHeaderTimeout enforced", "server.go"},
		// "add", "bytes", "update" are methods of header.go.
		{"go", "add support for reading gzip request bytes", "gzip.go"},
		{"go", "update the deadline when reading the request header", "server.go"},
		{"python", "options with a custom prefix character are parsed", "clicky/parser.py"},
		{"python", "update the terminal width detection to drop the old fallback", "clicky/termui.py"},
		{"python", "normalize option names with the context's token function", "clicky/parser.py"},
		{"typescript", "match a route with named parameters", "src/router/trie.ts"},
		{"typescript", "decode percent-encoded characters in the url path", "src/utils/url.ts"},
		{"ocaml", "read escape sequences in string literals", "lib/lexer.ml"},
		{"ocaml", "report an error on division by zero", "lib/eval.ml"},
		{"ocaml", "print nested expressions with minimal parentheses", "lib/pretty.ml"},
		{"ocaml", "operator precedence when parsing binary expressions", "lib/parser.ml"},
		{"ocaml", "look up a variable in the environment", "lib/eval.ml"},
		{"rust", "skip hidden files while walking directories", "crates/walk/src/walk.rs"},
		{"rust", "use non-capturing groups when translating globs", "crates/walk/src/glob.rs"},
		{"rust", "drop a file handle and add to the path", "crates/walk/src/lib.rs"},
	}
	indexes := map[string]*Index{}
	for repo, files := range rankRepos {
		root := t.TempDir()
		writeFiles(t, root, files)
		indexes[repo] = openIndex(t, root)
		update(t, indexes[repo], Options{})
	}
	for _, tt := range tests {
		t.Run(tt.repo+"/"+tt.query, func(t *testing.T) {
			ix := indexes[tt.repo]
			hits, err := ix.Lexical(t.Context(), tt.query, Filter{}, 30)
			if err != nil {
				t.Fatal(err)
			}
			files := distinctFiles(hits)
			if i := indexOf(files, tt.want); i < 0 || i > 2 {
				t.Errorf("%s is not in the top 3 files: %v", tt.want, files)
			}
		})
	}
}

// Code in a language without a grammar ranks before its changelog and
// tests, whether tern names the language (.ml, OCaml) or not (.zml).
func TestCodeWithoutAGrammarRanksBeforeItsDocsAndTests(t *testing.T) {
	for _, ext := range []string{".ml", ".zml"} {
		t.Run(ext, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{}
			for name, body := range rankRepos["ocaml"] {
				files[strings.Replace(name, ".ml", ext, 1)] = body
			}
			writeFiles(t, root, files)
			ix := openIndex(t, root)
			update(t, ix, Options{})
			for query, want := range map[string]string{
				"read escape sequences in string literals":          "lib/lexer" + ext,
				"report an error on division by zero":               "lib/eval" + ext,
				"print nested expressions with minimal parentheses": "lib/pretty" + ext,
			} {
				hits, err := ix.Lexical(t.Context(), query, Filter{}, 30)
				if err != nil {
					t.Fatal(err)
				}
				if files := distinctFiles(hits); len(files) == 0 || files[0] != want {
					t.Errorf("%q: files %v, want %s first", query, files, want)
				}
			}
		})
	}
}

func TestQueriesAskingForTestsOrDocsGetThem(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, rankRepos["go"])
	ix := openIndex(t, root)
	update(t, ix, Options{})
	for _, tt := range []struct {
		query string
		f     Filter
		want  string
	}{
		{"content type detection tests", Filter{}, "sniff_test.go"},
		{"changelog: content type sniffed", Filter{}, "CHANGELOG.md"},
		{"content type sniffed", Filter{Class: ClassTest}, "sniff_test.go"},
		{"content type sniffed", Filter{Class: ClassDocs}, "CHANGELOG.md"},
	} {
		hits, err := ix.Lexical(t.Context(), tt.query, tt.f, 30)
		if err != nil {
			t.Fatal(err)
		}
		files := distinctFiles(hits)
		if len(files) == 0 || files[0] != tt.want {
			t.Errorf("%q %+v: files %v, want %s first", tt.query, tt.f, files, tt.want)
		}
		for _, h := range hits {
			if !tt.f.Keeps(h.Path, h.Lang) {
				t.Errorf("%q %+v: hit %s escapes the filter", tt.query, tt.f, h.Path)
			}
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct{ path, lang, want string }{
		{"net/http/server.go", "go", ClassCode},
		{"net/http/server_test.go", "go", ClassTest},
		{"testing/testing.go", "go", ClassCode},
		{"go/doc/reader.go", "go", ClassCode},
		{"net/http/testdata/file", "text", ClassFixture},
		{"tests/regression.rs", "rust", ClassTest},
		{"tests/data/sherlock.txt", "text", ClassFixture},
		{"src/router/trie.test.ts", "typescript", ClassTest},
		{"tests/test_parser.py", "python", ClassTest},
		{"src/test_helpers.py", "python", ClassTest},
		{"CHANGELOG.md", "markdown", ClassDocs},
		{"CHANGES.rst", "text", ClassDocs},
		{"docs/guide.md", "markdown", ClassDocs},
		{"LICENSE", "text", ClassDocs},
		{"README", "", ClassDocs},
		{"NEWS.yaml", "yaml", ClassDocs},
		{"agent/history.go", "go", ClassCode},
		{"src/release.rs", "rust", ClassCode},
		{"app/security_test.py", "python", ClassTest},
		{"lib/notice.ts", "typescript", ClassCode},
		{"cmd/golden/x.golden", "text", ClassFixture},
		{".github/workflows/ci.yml", "yaml", ClassConfig},
		{"Cargo.toml", "toml", ClassConfig},
		{".gitignore", "text", ClassConfig},
		{"src/main/java/FooTest.java", "java", ClassTest},
		{"lib/lexer.ml", "ocaml", ClassCode},
		{"Sources/Alamofire/RequestTests.swift", "swift", ClassTest},
		{"src/Http/RequestTest.php", "php", ClassTest},
		{"base/strings/string_util_unittest.cc", "cpp", ClassTest},
		{"src/Http/Request.php", "php", ClassCode},
		{"app/build.gradle", "gradle", ClassConfig},
		{"CMakeLists.txt", "cmake", ClassConfig},
		{"paper/main.tex", "tex", ClassDocs},
	} {
		if got := Classify(tt.path, tt.lang); got != tt.want {
			t.Errorf("Classify(%q, %q) = %s, want %s", tt.path, tt.lang, got, tt.want)
		}
	}
}

func TestSymbolBoostNeedsAnIdentifier(t *testing.T) {
	for _, tt := range []struct {
		query, name string
		named       bool
	}{
		{"where is ReadHeaderTimeout enforced", "readheadertimeout", true},
		{"use `drop` here", "drop", true},
		{"call http.Server from main", "server", true},
		{"fix parse_config for empty files", "parse_config", true},
		{"add a timeout", "add", false},
		{"drop dependency on serde", "drop", false},
		{"Update the url", "update", false},
	} {
		q := analyse(tt.query, queryWords(tt.query))
		if got := q.idents[tt.name] == 1; got != tt.named {
			t.Errorf("%q names %s: %v, want %v (%v)", tt.query, tt.name, got, tt.named, q.idents)
		}
	}
}

// indexRepo writes files into a new directory and indexes it lexically.
func indexRepo(t *testing.T, files map[string]string) *Index {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	ix := openIndex(t, root)
	update(t, ix, Options{})
	return ix
}

// searchFiles returns the files of a lexical search's hits, best first.
func searchFiles(t *testing.T, ix *Index, query string, f Filter) []string {
	t.Helper()
	hits, err := ix.Lexical(t.Context(), query, f, 30)
	if err != nil {
		t.Fatal(err)
	}
	return distinctFiles(hits)
}

// corpusOf returns the index-wide figures of ix.
func corpusOf(t *testing.T, ix *Index) *corpus {
	t.Helper()
	cs, err := ix.corpus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func distinctFiles(hits []Chunk) []string {
	var files []string
	for _, h := range hits {
		if indexOf(files, h.Path) < 0 {
			files = append(files, h.Path)
		}
	}
	return files
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// refactorRepo defines DeleteStmt once and uses it in three files, beside
// files whose names and comments say delete and statement too.
func refactorRepo() map[string]string {
	user := func(pkg, fn, doc string) string {
		return "package " + pkg + "\n\nimport \"example.com/tool/refactor\"\n\n// " + doc + "\nfunc " + fn +
			"(f *File, s Stmt) {\n\tif s.Dead() {\n\t\trefactor.DeleteStmt(f, s)\n\t}\n}\n"
	}
	files := map[string]string{
		"go.mod": "module example.com/tool\n",
		"refactor/delete.go": "package refactor\n\n// DeleteStmt removes the statement s from f, and the comments that\n" +
			"// belong to it alone.\nfunc DeleteStmt(f *File, s Stmt) {\n\tf.remove(s.Pos(), s.End())\n}\n",
		"refactor/stmt.go": "package refactor\n\n// Stmt is a statement of the file being refactored.\ntype Stmt interface {\n\tPos() int\n\tEnd() int\n}\n\n" +
			"// DeleteBlock deletes every statement of a block, for refactors that delete whole blocks of statements.\n" +
			"func DeleteBlock(f *File, b Block) {\n\tfor _, s := range b.List {\n\t\tf.remove(s.Pos(), s.End())\n\t}\n}\n\n" +
			"// DeleteDecl deletes a declaration statement and its doc comment.\nfunc DeleteDecl(f *File, d Decl) {\n\tf.remove(d.Doc(), d.End())\n}\n",
		"refactor/refactor.go": "package refactor\n\n// Package refactor rewrites Go files: it deletes and inserts statements.\n\n" +
			"// Delete is a refactor that deletes a statement.\ntype Delete struct{ Stmt Stmt }\n\n" +
			"// Apply deletes the statement from the file.\nfunc (d Delete) Apply(f *File) { f.remove(d.Stmt.Pos(), d.Stmt.End()) }\n",
		"refactor/file.go": "package refactor\n\n// File is a file being refactored: its statements, and the deletes and inserts made to it.\n" +
			"type File struct{ edits []edit }\n\nfunc (f *File) remove(from, to int) { f.edits = append(f.edits, edit{from, to}) }\n",
		"inline/inline.go":   user("inline", "inlineCall", "inlineCall replaces a call by the callee's body and drops the call's statement."),
		"unused/unused.go":   user("unused", "dropUnused", "dropUnused drops assignments to variables that are never read."),
		"simplify/simple.go": user("simplify", "dropEmpty", "dropEmpty drops empty statements and blocks."),
		"refactor/refactor_test.go": "package refactor\n\nimport \"testing\"\n\n// DeleteStmt deletes the statement.\n" +
			"func TestDeleteStmt(t *testing.T) {\n\tf := &File{}\n\tDeleteStmt(f, nil)\n}\n",
	}
	// The rest of the tool, which says neither.
	for _, name := range strings.Fields("parse print format lint vet build load cache diff patch scan walk " +
		"list graph hash sign fetch pack serve watch trace index merge split sort count check fix") {
		files["internal/"+name+"/"+name+".go"] = fmt.Sprintf("package %s\n\n// Run does the %s step of the tool.\n"+
			"func Run(args []string) error {\n\treturn nil\n}\n\n// Name is the step's name.\nconst Name = %q\n", name, name, name)
	}
	return files
}

// "use X" asks for the places X is used as well as its definition: with
// the verb, the three files that call refactor.DeleteStmt rank right
// after it, closer to it than without the verb, and before the files that
// only say refactor, delete and statement.
func TestVerbOfUseRanksTheUsers(t *testing.T) {
	ix := indexRepo(t, refactorRepo())
	users := []string{"inline/inline.go", "unused/unused.go", "simplify/simple.go"}
	// closeness is the lowest score of a user against the definition's.
	closeness := func(query string) float64 {
		hits, err := ix.Lexical(t.Context(), query, Filter{}, 30)
		if err != nil {
			t.Fatal(err)
		}
		files := distinctFiles(hits)
		if len(files) < 4 || files[0] != "refactor/delete.go" {
			t.Fatalf("%q: files %v, want refactor/delete.go first", query, files)
		}
		score := map[string]float64{}
		for _, h := range hits {
			score[h.Path] = max(score[h.Path], h.Score)
		}
		low := 1.0
		for _, u := range users {
			if i := indexOf(files, u); i < 0 || i > 3 {
				t.Errorf("%q: %s is not in the top 4 files: %v", query, u, files)
			}
			low = min(low, score[u]/score[files[0]])
		}
		return low
	}
	plain, use := closeness("refactor.DeleteStmt"), closeness("use refactor.DeleteStmt")
	if use < plain+0.05 {
		t.Errorf("users score %.2f of the definition with the verb of use, %.2f without: want them closer", use, plain)
	}
}

// A name defined in several files (one per runtime) shares its boost
// among them: the file that uses the name is not pushed out of the top by
// its copies.
func TestCopiesOfANameShareItsBoost(t *testing.T) {
	files := map[string]string{
		"package.json": `{"name": "web"}`,
		"src/middleware/ip.ts": "import type { GetConnInfo } from '../conninfo'\n\n" +
			"// ipRestriction allows or denies a request by the client's address, which getConnInfo reads.\n" +
			"export const ipRestriction = (getConnInfo: GetConnInfo, rules: Rules) => (c: Context) => {\n" +
			"  const addr = getConnInfo(c).remote.address\n  return rules.allow(addr)\n}\n",
		"src/conninfo.ts": "// GetConnInfo reads the connection info of a request.\nexport type GetConnInfo = (c: Context) => ConnInfo\n",
	}
	for _, rt := range []string{"bun", "deno", "node", "workers", "lambda", "vercel"} {
		files["src/adapter/"+rt+"/conninfo.ts"] = "// getConnInfo reads the connection info of a request on " + rt + ".\n" +
			"export const getConnInfo = (c: Context) => ({ remote: { address: c.env.addr } })\n"
	}
	ix := indexRepo(t, files)
	if got := searchFiles(t, ix, "use getConnInfo", Filter{}); indexOf(got, "src/middleware/ip.ts") < 0 || indexOf(got, "src/middleware/ip.ts") > 2 {
		t.Errorf("files %v, want src/middleware/ip.ts in the top 3", got)
	}
}

func TestVerbsOfUse(t *testing.T) {
	for _, tt := range []struct {
		query string
		use   bool
		uses  [][]string
	}{
		{"use refactor.DeleteStmt", true, [][]string{{"refactor", "deletestmt"}}},
		{"replaced atty with std::io::IsTerminal", true, [][]string{{"std", "io", "isterminal"}}},
		{"avoid calling spread operator for `Object.create(null)`", true, [][]string{{"object", "create"}, {"null"}}},
		{"rename parse_config", true, [][]string{{"parse_config"}}},
		{"fix DeleteStmt for empty blocks", false, [][]string{{"deletestmt"}}},
		{"users of the cache", false, nil},
	} {
		q := analyse(tt.query, queryWords(tt.query))
		if q.verbOfUse != tt.use {
			t.Errorf("%q: verb of use %v, want %v", tt.query, q.verbOfUse, tt.use)
		}
		if !slices.EqualFunc(q.uses, tt.uses, slices.Equal) {
			t.Errorf("%q: uses %v, want %v", tt.query, q.uses, tt.uses)
		}
	}
	q := analyse("use refactor.DeleteStmt", queryWords("use refactor.DeleteStmt"))
	u := q.users([]term{{word: "DeleteStmt", idf: idf(1000, 3)}}, &corpus{chunks: 1000})
	for text, uses := range map[string]bool{
		"x := refactor.DeleteStmt(f)":  true,
		"x := refactor.deleteStmt(f)":  true,
		"x := refactor.DeleteStmts(f)": false,
		"x := DeleteStmt(f)":           false, // another package's
	} {
		if got := u.boost(text) > 0; got != uses {
			t.Errorf("%q uses refactor.DeleteStmt: %v, want %v", text, got, uses)
		}
	}
	q = analyse("rename Parse_Config", queryWords("rename Parse_Config"))
	u = q.users([]term{{word: "Parse_Config", idf: idf(1000, 3)}}, &corpus{chunks: 1000})
	if u.boost("cfg = parse_config(path)") == 0 || u.boost("cfg = parse_configs(path)") > 0 {
		t.Error("parse_config( uses Parse_Config, parse_configs( does not")
	}
}

// A name written called, `c.body()`, is a function or method: a type of
// the same name is not what the query names.
func TestACallNamesAFunction(t *testing.T) {
	cs := &corpus{chunks: 1000}
	terms := []term{{word: "body", idf: idf(1000, 3)}}
	for _, tt := range []struct {
		query      string
		kind       string
		boostsType bool
	}{
		{"should populate `output` type for `c.body()`", "type", false},
		{"should populate `output` type for `c.body()`", "method", true},
		{"should populate the `c.body` type", "type", true},
	} {
		q := analyse(tt.query, queryWords(tt.query))
		if got := q.symbolBoost(Chunk{Symbol: "Body", Kind: tt.kind}, terms, cs) > 0; got != tt.boostsType {
			t.Errorf("%q boosts a %s named Body: %v, want %v", tt.query, tt.kind, got, tt.boostsType)
		}
	}
}
