// Package lexers is chroma's lexers package (github.com/alecthomas/chroma
// /v2/lexers, MIT, see COPYING), with its registry built when it is first
// used rather than when the program starts. Chroma's package parses all
// of its ~280 XML lexers in an init function: 7 ms of every tern process,
// `tern ask` too, which never highlights anything. The chroma_*.go files
// and embedded/ are chroma's, copied by update.sh; this file replaces
// chroma's lexers.go.
package lexers

//go:generate sh update.sh

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

var (
	// queued are the lexers chroma's Go files register, in the order
	// its package initialises them; hooks are its init functions, which
	// adjust lexers of the registry.
	queued []chroma.Lexer
	hooks  []func()
	// building is the registry while registry builds it, for the hooks.
	building *chroma.LexerRegistry
)

// registry is chroma's GlobalLexerRegistry, built as chroma builds it: the
// XML lexers, then the Go ones, then the init functions.
var registry = sync.OnceValue(func() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(err)
	}
	for _, path := range paths {
		reg.Register(chroma.MustNewXMLLexer(embedded, path))
	}
	for _, l := range queued {
		reg.Register(l)
	}
	building = reg
	for _, h := range hooks {
		h()
	}
	building = nil
	return reg
})

// Registry returns the registry of all lexers.
func Registry() *chroma.LexerRegistry { return registry() }

// Register adds a lexer to the registry; before the registry is built, it
// is queued for it.
func Register(lexer chroma.Lexer) chroma.Lexer {
	queued = append(queued, lexer)
	return lexer
}

// afterBuild queues one of chroma's init functions for when the registry
// is built.
func afterBuild(f func()) bool {
	hooks = append(hooks, f)
	return true
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string { return registry().Names(withAliases) }

// Aliases of all the lexers, and skip those lexers who do not have any
// aliases, or show their name instead.
func Aliases(skipWithoutAliases bool) []string { return registry().Aliases(skipWithoutAliases) }

// Get a Lexer by name, alias or file extension.
func Get(name string) chroma.Lexer { return registry().Get(name) }

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer { return registry().MatchMimeType(mimeType) }

// Match returns the first lexer matching filename.
func Match(filename string) chroma.Lexer { return registry().Match(filename) }

// Analyse text content and return the "best" lexer.
func Analyse(text string) chroma.Lexer { return registry().Analyse(text) }

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{Pattern: `.+`, Type: chroma.Text, Mutator: nil},
			{Pattern: `\n`, Type: chroma.Text, Mutator: nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
