package index

import (
	"database/sql/driver"
	"path"
	"strings"

	"modernc.org/sqlite"
)

func init() {
	// tern_class(path, lang) is Classify, for filtering in SQL.
	sqlite.MustRegisterDeterministicScalarFunction("tern_class", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		p, _ := args[0].(string)
		l, _ := args[1].(string)
		return Classify(p, l), nil
	})
}

// File classes: what a file is for, judged from its path and language.
// Search ranks code first; the other classes rank lower unless the query
// asks for them, and Filter.Class keeps one.
const (
	ClassCode    = "code"
	ClassTest    = "test"
	ClassDocs    = "docs"
	ClassFixture = "fixture"
	ClassConfig  = "config"
)

// proseLangs are the languages of prose and data files: documentation when
// they stand among the docs, never code.
var proseLangs = map[string]bool{"markdown": true, "text": true, "html": true, "tex": true, "typst": true, "data": true}

// configLangs are the languages of configuration and build files.
var configLangs = map[string]bool{"yaml": true, "json": true, "toml": true, "ini": true, "xml": true,
	"make": true, "dockerfile": true, "gradle": true, "cmake": true, "bazel": true, "sbt": true, "gomod": true, "csv": true,
	"plist": true}

// docNames are the upper-case name stems of project documents, whatever
// their extension: CHANGELOG.md, HISTORY.rst, NEWS, README.
var docNames = []string{"CHANGELOG", "CHANGES", "HISTORY", "NEWS", "RELEASE", "README", "CONTRIBUTING",
	"AUTHORS", "LICENSE", "COPYING", "NOTICE", "SECURITY", "CODE_OF_CONDUCT", "UPGRADING", "MIGRATING"}

// Classify returns the class of the file at the slash-separated path rel
// in language lang: ClassFixture for test data, golden files and fixtures,
// ClassTest for tests, ClassDocs for documentation and changelogs, and
// ClassConfig for configuration and build files, and ClassCode for
// everything else.
func Classify(rel, lang string) string {
	dir, base := path.Split(rel)
	lowerDir := "/" + strings.ToLower(dir)
	for _, d := range []string{"/testdata/", "/fixtures/", "/fixture/", "/__fixtures__/", "/__snapshots__/",
		"/snapshots/", "/golden/", "/goldens/", "/test_data/", "/test-data/", "/testfiles/"} {
		if strings.Contains(lowerDir, d) {
			return ClassFixture
		}
	}
	lowerBase := strings.ToLower(base)
	ext := path.Ext(lowerBase)
	if ext == ".golden" || ext == ".snap" || strings.Contains(lowerBase, ".golden.") {
		return ClassFixture
	}
	prose := proseLangs[lang] || ext == ".rst" || ext == ".adoc"
	if hasStem(base, docNames) && (prose || configLangs[lang] || lang == "") {
		// README, NEWS.md, CHANGES.rst; not the source file history.go,
		// release.rs or security.py, which are code.
		return ClassDocs
	}
	if testFile(lowerDir, lowerBase, ext) {
		if prose || configLangs[lang] {
			return ClassFixture // the data of tests
		}
		return ClassTest
	}
	if prose && !strings.HasPrefix(base, ".") {
		return ClassDocs
	}
	if configLangs[lang] || strings.HasPrefix(lowerDir, "/.") || strings.HasPrefix(base, ".") {
		return ClassConfig
	}
	return ClassCode
}

// xunitExts are the languages whose tests are named FooTest or FooTests.
var xunitExts = map[string]bool{".java": true, ".kt": true, ".cs": true, ".scala": true, ".groovy": true,
	".php": true, ".swift": true, ".m": true, ".mm": true, ".fs": true, ".vb": true}

// testFile reports the naming conventions of tests in the common
// languages: a tests directory, foo_test.go, test_foo.py, foo.test.ts,
// foo.spec.js, FooTest.java, FooTests.swift, foo_spec.rb, foo_unittest.cc.
func testFile(lowerDir, lowerBase, ext string) bool {
	for _, d := range []string{"/test/", "/tests/", "/__tests__/", "/spec/", "/specs/", "/e2e/"} {
		if strings.Contains(lowerDir, d) {
			return true
		}
	}
	stem := strings.TrimSuffix(lowerBase, ext)
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_tests"), strings.HasSuffix(stem, "_spec"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"), strings.HasSuffix(stem, "-test"),
		strings.HasSuffix(stem, "_unittest"):
		return true
	case ext == ".py" && (strings.HasPrefix(stem, "test_") || stem == "conftest"):
		return true
	case xunitExts[ext]:
		return strings.HasSuffix(stem, "test") || strings.HasSuffix(stem, "tests")
	}
	return false
}

// intent is what kinds of file a query asks for besides code; history is
// a changelog or release notes.
type intent struct {
	docs, tests, fixtures, config, history bool
}

// intentWords name the classes a query may ask for.
var intentWords = map[string]func(*intent){
	"doc": func(i *intent) { i.docs = true }, "docs": func(i *intent) { i.docs = true },
	"documentation": func(i *intent) { i.docs = true }, "documented": func(i *intent) { i.docs = true },
	"readme": func(i *intent) { i.docs = true }, "changelog": func(i *intent) { i.docs, i.history = true, true },
	"changelogs": func(i *intent) { i.docs, i.history = true, true },
	"manual":     func(i *intent) { i.docs = true }, "tutorial": func(i *intent) { i.docs = true },
	"guide": func(i *intent) { i.docs = true },
	"test":  func(i *intent) { i.tests = true }, "tests": func(i *intent) { i.tests = true },
	"testing": func(i *intent) { i.tests = true }, "tested": func(i *intent) { i.tests = true },
	"unittest": func(i *intent) { i.tests = true }, "spec": func(i *intent) { i.tests = true },
	"specs":   func(i *intent) { i.tests = true },
	"fixture": func(i *intent) { i.fixtures = true }, "fixtures": func(i *intent) { i.fixtures = true },
	"testdata": func(i *intent) { i.fixtures = true }, "golden": func(i *intent) { i.fixtures = true },
	"snapshot": func(i *intent) { i.fixtures = true }, "snapshots": func(i *intent) { i.fixtures = true },
	"ci": func(i *intent) { i.config = true }, "workflow": func(i *intent) { i.config = true },
	"yaml": func(i *intent) { i.config = true }, "yml": func(i *intent) { i.config = true },
	"toml": func(i *intent) { i.config = true }, "json": func(i *intent) { i.config = true },
	"dockerfile": func(i *intent) { i.config = true }, "makefile": func(i *intent) { i.config = true },
	"manifest": func(i *intent) { i.config = true },
}

func queryIntent(words []string) intent {
	var in intent
	for _, w := range words {
		if set := intentWords[strings.ToLower(w)]; set != nil {
			set(&in)
		}
	}
	return in
}

// askedShare is how much of its distance to code a class the query asks
// for makes up. Half, not all: "docs" in a commit subject means comments
// in the code more often than Markdown, so the asked-for class moves up
// beside the code rather than above it. Tests are the exception: a query
// that says "test" wants the tests (see classWeight).
const askedShare = 0.5

// historyShare is the weight of a changelog or release note against other
// documentation: it names every subject the project touched, one release
// after another, so it matches most queries without being where anything
// is done.
const historyShare = 0.6

// classWeight is how much a file of class c counts against code, for a
// query with intent in: a class the query asks for moves askedShare of
// the way up to code, tests all the way.
func (in intent) classWeight(c string) float64 {
	asked := func(w float64) float64 { return w + askedShare*(1-w) }
	switch c {
	case ClassTest:
		if in.tests {
			return 1
		}
		return 0.5
	case ClassDocs:
		if in.docs {
			return asked(0.35)
		}
		return 0.35
	case ClassFixture:
		if in.fixtures {
			return asked(0.25)
		}
		if in.tests {
			return 0.5
		}
		return 0.25
	case ClassConfig:
		if in.config {
			return asked(0.35)
		}
		// Manifests, CI and build files name the packages, flags and
		// targets of the code without being it: as low as the docs.
		return 0.35
	}
	return 1
}

// fileWeight is how much the file at rel in lang counts against code,
// for a query with intent in: its class's weight, less for a changelog
// unless the query asks for one.
func (in intent) fileWeight(rel, lang string) float64 {
	c := Classify(rel, lang)
	w := in.classWeight(c)
	if c == ClassDocs && history(rel) {
		if in.history {
			return 1 // the query names the changelog
		}
		w *= historyShare
	}
	return w
}

// historyNames are the upper-case name stems of the files that record a
// project's changes release by release, whatever their extension.
var historyNames = []string{"CHANGELOG", "CHANGES", "HISTORY", "NEWS", "RELEASE", "RELNOTES", "WHATSNEW"}

// historyDirs hold a project's change notes, a file per release or per
// change (towncrier's newsfragments, changelog.d, docs/releases).
var historyDirs = []string{"/changelog/", "/changelogs/", "/changes/", "/changelog.d/", "/newsfragments/",
	"/release-notes/", "/releasenotes/", "/release_notes/", "/releases/", "/relnotes/", "/whatsnew/"}

// history reports whether the documentation file at the slash-separated
// path rel is a changelog or a release note.
func history(rel string) bool {
	dir, base := path.Split(rel)
	lowerDir := "/" + strings.ToLower(dir)
	for _, d := range historyDirs {
		if strings.Contains(lowerDir, d) {
			return true
		}
	}
	return hasStem(base, historyNames)
}

// hasStem reports whether the upper-cased base name starts with one of
// stems as a whole word: CHANGELOG.md and CHANGES_2024.rst, not
// CHANGESET.md.
func hasStem(base string, stems []string) bool {
	upper := strings.ToUpper(base)
	for _, n := range stems {
		if strings.HasPrefix(upper, n) && (len(upper) == len(n) || !isIdentByte(upper[len(n)]) || upper[len(n)] == '_') {
			return true
		}
	}
	return false
}

// ClassWeight is the factor by which search scales the score of a file at
// path rel in language lang for query: 1 for code, more for the classes
// the query asks for ("docs", "tests", "fixtures", …) than for the
// others.
func ClassWeight(query, rel, lang string) float64 {
	return queryIntent(queryWords(query)).fileWeight(rel, lang)
}
