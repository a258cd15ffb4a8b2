// Package grammar is the tree-sitter grammars tern links: each language's
// name, its file extensions and its parser. The index chunks code along
// them; the edit tools check with them that an edit left a file that
// parses. A grammar is cgo and megabytes in the binary, so there is one
// table, here.
//
// grammar imports nothing of tern.
package grammar

import (
	"path/filepath"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Grammar is one language tern parses.
type Grammar struct {
	// Name is the language's name, as the index records it: "go",
	// "python", "tsx".
	Name string
	// Exts are the file extensions of the language, lower case with the
	// dot.
	Exts []string
	// Language returns the tree-sitter language to parse it with.
	Language func() *sitter.Language
}

var all = []Grammar{
	{"go", []string{".go"}, golang.GetLanguage},
	{"python", []string{".py", ".pyi"}, python.GetLanguage},
	{"javascript", []string{".js", ".mjs", ".cjs", ".jsx"}, javascript.GetLanguage},
	{"typescript", []string{".ts", ".mts", ".cts"}, typescript.GetLanguage},
	{"tsx", []string{".tsx"}, tsx.GetLanguage},
	{"rust", []string{".rs"}, rust.GetLanguage},
	{"java", []string{".java"}, java.GetLanguage},
	{"c", []string{".c"}, c.GetLanguage},
	{"cpp", []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h", ".ipp"}, cpp.GetLanguage},
	{"ruby", []string{".rb", ".rake", ".gemspec"}, ruby.GetLanguage},
	{"bash", []string{".sh", ".bash", ".zsh"}, bash.GetLanguage},
}

// ForExt returns the grammar of a file extension (".go"), or nil.
func ForExt(ext string) *Grammar {
	for i := range all {
		if slices.Contains(all[i].Exts, ext) {
			return &all[i]
		}
	}
	return nil
}

// ForPath returns the grammar of the file at path, by its extension in
// any case, or nil.
func ForPath(path string) *Grammar { return ForExt(strings.ToLower(filepath.Ext(path))) }

// Named returns the grammar of a language name, or nil.
func Named(name string) *Grammar {
	for i := range all {
		if all[i].Name == name {
			return &all[i]
		}
	}
	return nil
}
