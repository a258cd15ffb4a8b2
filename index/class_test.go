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
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			ix := openIndex(t, root)
			update(t, ix, Options{})
			cs, err := ix.corpus(t.Context())
			if err != nil {
				t.Fatal(err)
			}
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
