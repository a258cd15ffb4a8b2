package index

import (
	"context"
	"path"
	"strings"
)

// What a repository is written in. Search weighs code in the minor
// languages of a repository down (see corpus.langWeight): the main
// language is the named language with the most bytes of code (see
// shares), measured outside tests, docs, data and third-party trees, so
// that a thousand small query or data files beside a few hundred source
// files do not make it. A repository whose root is no project but holds
// several side by side (backend/go.mod beside web/package.json) is
// measured project by project as well.

// langShares says how much of a repository's code each language is.
type langShares struct {
	// repo is each language's bytes of code against the main
	// language's, 1 for the languages of the main language's family.
	repo map[string]float64
	// project is a file's language share within its own project, where
	// that is higher than repo's.
	project map[int64]float64
}

// of returns the share of the language of file id: 0 for a language
// none of the repository's code is written in.
func (s langShares) of(id int64, lang string) float64 {
	return max(s.repo[lang], s.project[id])
}

// manifests are the build files that make their directory a project.
var manifests = map[string]bool{
	"go.mod": true, "package.json": true, "deno.json": true, "Cargo.toml": true, "pyproject.toml": true,
	"setup.py": true, "pom.xml": true, "build.gradle": true, "build.gradle.kts": true, "build.sbt": true,
	"Gemfile": true, "composer.json": true, "mix.exs": true, "Package.swift": true, "pubspec.yaml": true,
	"CMakeLists.txt": true, "meson.build": true, "stack.yaml": true, "dune-project": true,
}

// thirdPartyDirs hold other projects' code copied in. It is searched,
// but does not decide what the repository is written in.
var thirdPartyDirs = []string{"/third_party/", "/third-party/", "/thirdparty/", "/3rdparty/", "/extern/", "/deps/"}

// fileStats measures the languages of the repository's code, and reads
// each file's size.
func (ix *Index) fileStats(ctx context.Context) (langShares, map[int64]int64, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, lang, path, size FROM files WHERE skip = ''`)
	if err != nil {
		return langShares{}, nil, ix.fail("search index", err)
	}
	defer rows.Close()
	type codeFile struct {
		id         int64
		lang, path string
		size       int64
	}
	var code []codeFile
	sizes := map[int64]int64{}
	projects := map[string]bool{} // directories with a manifest, "" the root
	for rows.Next() {
		var f codeFile
		if err := rows.Scan(&f.id, &f.lang, &f.path, &f.size); err != nil {
			return langShares{}, nil, ix.fail("search index", err)
		}
		sizes[f.id] = f.size
		dir, base := path.Split(f.path)
		if manifests[base] {
			projects[dir] = true
		}
		if Classify(f.path, f.lang) == ClassCode && !thirdParty(dir) {
			code = append(code, f)
		}
	}
	if err := rows.Err(); err != nil {
		return langShares{}, nil, ix.fail("search index", err)
	}
	all := map[string]int64{}
	for _, f := range code {
		all[f.lang] += max(f.size, 1)
	}
	s := langShares{repo: shares(all)}
	if projects[""] || len(projects) == 0 {
		// One project, measured as a whole: its web UI or bindings in a
		// directory of their own stay minor.
		return s, sizes, nil
	}
	// Several projects side by side: a file's language counts as much
	// as it does in the repository or in its project (the nearest
	// directory above it with a manifest), whichever is more.
	projectOf := func(rel string) string {
		for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if projects[dir+"/"] {
				return dir + "/"
			}
		}
		return ""
	}
	bytes := map[string]map[string]int64{}
	of := make([]string, len(code))
	for i, f := range code {
		p := projectOf(f.path)
		if of[i] = p; p == "" {
			continue
		}
		if bytes[p] == nil {
			bytes[p] = map[string]int64{}
		}
		bytes[p][f.lang] += max(f.size, 1)
	}
	within := map[string]map[string]float64{}
	for p, b := range bytes {
		within[p] = shares(b)
	}
	s.project = map[int64]float64{}
	for i, f := range code {
		if v := within[of[i]][f.lang]; v > s.repo[f.lang] {
			s.project[f.id] = v
		}
	}
	return s, sizes, nil
}

// shares weighs each language's bytes of code against the main
// language's: the named language with the most, unless a language tern
// cannot name holds more than the named ones together (a repository in a
// language tern does not know). Every language of the main language's
// family counts as main.
func shares(code map[string]int64) map[string]float64 {
	var named, unnamed string
	var namedTotal int64
	for l, n := range code {
		top := &unnamed
		if namedLangs[l] {
			top = &named
			namedTotal += n
		}
		if *top == "" || n > code[*top] || n == code[*top] && l < *top {
			*top = l
		}
	}
	main := named
	if unnamed != "" && code[unnamed] > namedTotal {
		main = unnamed
	}
	out := map[string]float64{}
	for l, n := range code {
		out[l] = float64(n) / float64(code[main])
		if langFamily(l) == langFamily(main) {
			out[l] = 1
		}
	}
	return out
}

// thirdParty reports a directory (slash-separated, ending in a slash)
// within a tree of other projects' code.
func thirdParty(dir string) bool {
	lower := "/" + strings.ToLower(dir)
	for _, d := range thirdPartyDirs {
		if strings.Contains(lower, d) {
			return true
		}
	}
	return false
}

// namedLangs are the languages tern names by a grammar or an extension
// or file name it knows, not the ones an unknown extension names.
var namedLangs = func() map[string]bool {
	m := map[string]bool{}
	for _, g := range grammars {
		m[g.Name] = true
	}
	for _, l := range textLangs {
		m[l] = true
	}
	for _, l := range specialNames {
		m[l] = true
	}
	return m
}()

// langFamily merges the languages that are one language in two kinds of
// file: a header (.h) parses as C++ beside C, Objective-C or CUDA, and .tsx
// is TypeScript. Every language of the main language's family counts as
// main: a header is never a minor language of its own code.
func langFamily(lang string) string {
	switch lang {
	case "cpp", "objective-c", "cuda":
		return "c"
	case "tsx":
		return "typescript"
	}
	return lang
}
