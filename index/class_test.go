package index

import (
	"fmt"
	"strings"
	"testing"
)

// A CI or build file that names the query's words more often than the
// code still ranks after it, unless the query asks for configuration.
func TestConfigRanksBelowCode(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"upload.go": "package m\n\n// Upload sends the archive.\nfunc Upload() error { return nil }\n\n" +
			"// Again sends it once more after a failure: a retry.\nfunc Again() error { return nil }\n",
		"other.go": "package m\n\nfunc Other() {}\n",
		".github/workflows/upload.yml": "name: retry the archive upload\njobs:\n  upload:\n    steps:\n" +
			"      - run: make archive-upload # retry the archive upload\n      - run: make retry-upload # retry the archive upload\n",
	})
	ix := openIndex(t, root)
	update(t, ix, Options{})
	for query, want := range map[string]string{
		"retry the archive upload":           "upload.go",
		"retry the archive upload in the ci": ".github/workflows/upload.yml",
	} {
		hits, err := ix.Lexical(t.Context(), query, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if files := distinctFiles(hits); len(files) == 0 || files[0] != want {
			t.Errorf("%q: files %v, want %s first", query, files, want)
		}
	}
}

// Scripts in a language with a third as much code as the main one rank
// after main code that holds the same words, unless the query names the
// language.
func TestMinorLanguageRanksBelowMainLanguage(t *testing.T) {
	files := map[string]string{
		"rotate.go":         "package m\n\n// Rotate renames the log file and opens a new one.\nfunc Rotate() error { return nil }\n",
		"scripts/rotate.sh": "#!/bin/sh\n# rotate renames the log file and opens a new one.\nmv \"$1\" \"$1.1\"\n",
		"scripts/a.sh":      "#!/bin/sh\necho a\n",
	}
	for i := range 6 {
		files[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package m\n\nfunc F%d() {}\n", i)
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	ix := openIndex(t, root)
	update(t, ix, Options{})
	for query, want := range map[string]string{
		"rename the log file":      "rotate.go",
		"rename the log file bash": "scripts/rotate.sh",
	} {
		hits, err := ix.Lexical(t.Context(), query, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if files := distinctFiles(hits); len(files) == 0 || files[0] != want {
			t.Errorf("%q: files %v, want %s first", query, files, want)
		}
	}
}

// Headers parse as C++ and .tsx files as their own grammar, but neither is
// a minor language in a repository of C or TypeScript; a script is, and so
// is TypeScript beside a larger Go code base, and a script beside code in
// a language tern cannot name.
func TestLanguagesOfTheMainFamilyAreMain(t *testing.T) {
	repo := func(main string, n int, others ...string) map[string]string {
		files := map[string]string{"scripts/gen.sh": "#!/bin/sh\necho gen\n"}
		for i := range n {
			files[fmt.Sprintf("src/f%d%s", i, main)] = fmt.Sprintf("// f%d computes the %d-th value.\n", i, i)
		}
		for i, name := range others {
			files[name] = fmt.Sprintf("// other %d\n", i)
		}
		return files
	}
	for _, tt := range []struct {
		name  string
		files map[string]string
		full  map[string]bool
	}{
		{"c with headers", repo(".c", 6, "src/buffer.h", "src/list.h"),
			map[string]bool{"c": true, "cpp": true, "bash": false}},
		{"tsx with ts", repo(".tsx", 6, "src/api.ts", "src/store.ts"),
			map[string]bool{"tsx": true, "typescript": true, "bash": false}},
		{"go with a web ui", repo(".go", 8, "web/App.tsx", "web/api.ts"),
			map[string]bool{"go": true, "tsx": false, "typescript": false}},
		{"a language tern cannot name", repo(".zml", 6),
			map[string]bool{"zml": true, "bash": false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := corpusOf(t, indexRepo(t, tt.files))
			for lang, full := range tt.full {
				if w := cs.langWeight(0, lang, query{}); (w == 1) != full {
					t.Errorf("%s weighs %.2f", lang, w)
				}
			}
		})
	}
}

// A type the query names in backticks is found by its declaration even
// when its name is too common a word to be among the rare words searched
// and the declaration holds no other word of the query.
func TestBacktickedTypeFindsItsDeclaration(t *testing.T) {
	files := map[string]string{
		"dir.go": "package m\n\n// Ignore is a matcher built from a directory.\ntype Ignore struct {\n\tdir string\n\tparent *Ignore\n}\n\n" +
			"func (d *Dir) Walk() {}\n",
		"fields.go": "package m\n\n// Named fields of a record.\ntype Record struct{ Name string }\n",
	}
	// More than rankRows chunks say ignore.
	for f := range 3 {
		var b strings.Builder
		b.WriteString("package m\n")
		for i := range 400 {
			fmt.Fprintf(&b, "\n// F%d_%d may ignore the file.\nfunc F%d_%d() { ignore() }\n", f, i, f, i)
		}
		files[fmt.Sprintf("filler%d.go", f)] = b.String()
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	ix := openIndex(t, root)
	update(t, ix, Options{})
	hits, err := ix.Lexical(t.Context(), "use named fields in `Ignore`", Filter{}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if files := distinctFiles(hits); indexOf(files, "dir.go") < 0 || indexOf(files, "dir.go") > 2 {
		t.Errorf("files %v, want dir.go in the top 3", files)
	}
}

// retryRepo is a small Python library whose changelog and release notes
// name every subject its code deals with, release after release, as
// changelogs do.
func retryRepo() map[string]string {
	files := map[string]string{
		"pyproject.toml": "[project]\nname = \"retrying\"\n",
		"retrying/backoff.py": `"""Waiting between tries."""
import random


def pause(n, base=0.5, cap=30.0):
    """How long to sleep before try n: base doubled for every failure,
    capped, and randomised so that clients spread out."""
    d = min(cap, base * 2 ** n)
    return d / 2 + random.uniform(0, d / 2)
`,
		"retrying/policy.py": `"""When to give up."""


class RetryPolicy:
    """Whether a failed call is tried again: up to max_attempts times,
    for the exceptions in retry_on."""

    def __init__(self, max_attempts=3, retry_on=(IOError,)):
        self.max_attempts = max_attempts
        self.retry_on = retry_on

    def should_retry(self, attempt, exc):
        return attempt < self.max_attempts and isinstance(exc, self.retry_on)
`,
		"retrying/timeout.py": `"""A deadline for a whole call."""
import time


class Deadline:
    """The time every attempt together may take; once it passes no
    attempt starts."""

    def __init__(self, seconds):
        self.expires = time.monotonic() + seconds

    def remaining(self):
        return max(0.0, self.expires - time.monotonic())
`,
	}
	var log strings.Builder
	log.WriteString("# Changes\n")
	for v := 9; v > 0; v-- {
		fmt.Fprintf(&log, "\n## Version 1.%d\n\n", v)
		fmt.Fprintf(&log, "- Backoff: the delay between attempts grows, with random jitter (#%d).\n", 10*v)
		fmt.Fprintf(&log, "- Retry policy: give up after max attempts, retry on some exceptions only (#%d).\n", 10*v+1)
		fmt.Fprintf(&log, "- Deadline: a timeout for every attempt together (#%d).\n", 10*v+2)
	}
	files["CHANGES.md"] = log.String()
	files["docs/releases/2.0.md"] = "# Release 2.0\n\nThe backoff delay between attempts has random jitter; " +
		"the retry policy gives up after max attempts; a deadline is a timeout for every attempt together.\n"
	return files
}

// A changelog names every subject of the code, release after release: it
// ranks after the code a question is about, and comes first when the
// query asks for the changelog or with --docs.
func TestChangelogRanksBelowCode(t *testing.T) {
	ix := indexRepo(t, retryRepo())
	for _, tt := range []struct {
		query string
		f     Filter
		want  string
	}{
		{"random jitter in the backoff delay", Filter{}, "retrying/backoff.py"},
		{"give up after max attempts", Filter{}, "retrying/policy.py"},
		{"a timeout for every attempt together", Filter{}, "retrying/timeout.py"},
		{"changelog: random jitter in the backoff delay", Filter{}, "CHANGES.md"},
		{"random jitter in the backoff delay", Filter{Class: ClassDocs}, "CHANGES.md"},
	} {
		if files := searchFiles(t, ix, tt.query, tt.f); len(files) == 0 || files[0] != tt.want {
			t.Errorf("%q %+v: files %v, want %s first", tt.query, tt.f, files, tt.want)
		}
	}
}

// highlighterRepo is a syntax highlighter in Rust whose tests hold
// samples of the languages it highlights: the samples say more about
// numbers and strings than the Rust code does, but are not its code.
func highlighterRepo() map[string]string {
	files := map[string]string{
		"Cargo.toml": "[package]\nname = \"hl\"\n",
		"src/lexer.rs": `/// Lexer splits a line into tokens for highlighting.
pub struct Lexer<'a> {
    line: &'a str,
}

impl<'a> Lexer<'a> {
    /// number reads a number, decimal or hexadecimal.
    pub fn number(&mut self) -> Token {
        let end = self.line.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(self.line.len());
        Token::Number(end)
    }

    /// string_literal reads a quoted string literal with its escapes.
    pub fn string_literal(&mut self) -> Token {
        Token::String(self.line[1..].find('"').map_or(self.line.len(), |i| i + 2))
    }
}
`,
		"src/theme.rs": "/// Theme maps token kinds to colours.\npub struct Theme {\n    colours: Vec<Colour>,\n}\n",
		"tests/highlight.rs": "// A hexadecimal number is one token.\n#[test]\nfn hexadecimal_number() {\n" +
			"    assert_eq!(hl::highlight(\"let x = 0x1f;\").len(), 4);\n}\n",
		"tests/syntax/Go/literals.go": "package samples\n\n// Number literals: decimal, hexadecimal, octal.\nvar numbers = []int{1, 0x1f, 0o17}\n\n" +
			"// String literals: interpreted and raw.\nvar strings = []string{\"a\\n\", `raw`}\n\n// A hexadecimal number literal.\nvar hex = 0xff\n",
		"tests/syntax/Python/literals.py": "# Number literals: decimal, hexadecimal, octal.\nnumbers = [1, 0x1f, 0o17]\n\n" +
			"# String literals: quoted, raw, bytes.\nstrings = ['a\\n', r'raw', b'bytes']\n\n# A hexadecimal number literal.\nhex = 0xff\n",
		"tests/syntax/JavaScript/literals.js": "// Number literals: decimal, hexadecimal, octal.\nconst numbers = [1, 0x1f, 0o17];\n\n" +
			"// String literals: quoted and template.\nconst strings = ['a\\n', `t${1}`];\n\n// A hexadecimal number literal.\nconst hex = 0xff;\n",
	}
	return files
}

// Samples of other languages in a test tree (a highlighter's syntax
// tests) rank below the repository's code, and below its own tests in its
// own language, yet stay findable with --tests.
func TestSamplesInOtherLanguagesRankBelowCode(t *testing.T) {
	ix := indexRepo(t, highlighterRepo())
	const hex = "hexadecimal number literal"
	if files := searchFiles(t, ix, hex, Filter{}); len(files) == 0 || files[0] != "src/lexer.rs" {
		t.Errorf("files %v, want src/lexer.rs first", files)
	}
	cs := corpusOf(t, ix)
	if rust, py := cs.langWeight(0, "rust", query{}), cs.langWeight(0, "python", query{}); py >= rust {
		t.Errorf("a python sample weighs %.2f against the rust tests' %.2f", py, rust)
	}
	if files := searchFiles(t, ix, hex, Filter{Class: ClassTest}); len(files) < 3 {
		t.Errorf("--tests finds %v, want the samples", files)
	}
}

// "docs" in a query is a soft preference: in a commit subject it more
// often means the comments in the code than Markdown, so the code whose
// doc comment is meant still ranks first, and the Markdown page comes up
// beside it rather than above it; --docs keeps the documentation only.
func TestDocsWordIsASoftPreference(t *testing.T) {
	files := retryRepo()
	files["docs/deadlines.md"] = "# Deadlines\n\nA deadline bounds the time of every attempt together: " +
		"Deadline.remaining returns the time left.\n"
	ix := indexRepo(t, files)
	const query = "update the docs of Deadline.remaining"
	files0 := searchFiles(t, ix, query, Filter{})
	if len(files0) == 0 || files0[0] != "retrying/timeout.py" {
		t.Errorf("%q: files %v, want retrying/timeout.py first", query, files0)
	}
	if i := indexOf(files0, "docs/deadlines.md"); i < 0 || i > 2 {
		t.Errorf("%q: files %v, want docs/deadlines.md in the top 3", query, files0)
	}
	if files := searchFiles(t, ix, query, Filter{Class: ClassDocs}); len(files) == 0 || files[0] != "docs/deadlines.md" {
		t.Errorf("%q --docs: files %v, want docs/deadlines.md first", query, files)
	}
	plain, asked := ClassWeight("the deadline", "docs/deadlines.md", "markdown"),
		ClassWeight("the deadline docs", "docs/deadlines.md", "markdown")
	if !(plain < asked && asked < 1) {
		t.Errorf("docs weigh %.2f, and %.2f when asked for: want more, below code's 1", plain, asked)
	}
}
