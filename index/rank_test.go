package index

import (
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
