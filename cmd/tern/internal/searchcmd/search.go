// Package searchcmd is the `tern search` command, in the cli/cli manner:
// Options (its arguments and flags), NewCmd (the cobra command, with the
// checks of its arguments, handing the parsed Options to the run it is
// given, so that tests parse command lines without running anything)
// and Run (the search over the workspace's code index, its notices and
// its hits as text or JSON).
//
// Package main gives Run the index (Env.Open) and maps its usage errors
// to exit codes. searchcmd imports rag, index (the file classes) and
// indexview (how hits are printed), nothing else of tern.
package searchcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/indexview"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/rag"
)

// Options are tern search's arguments and flags.
type Options struct {
	// Query is the words given.
	Query string
	// EmbedModel, when set, embeds the query (--embed-model); NoEmbed
	// searches lexically (--no-embed).
	EmbedModel string
	NoEmbed    bool
	// Search holds -k, --lang, --path, and the class of --code, --tests
	// or --docs.
	Search rag.Options
	JSON   bool
}

// NewCmd returns the tern search command. It hands the options it parsed
// to run; usage wraps a mistake in how it was called (an empty query,
// --code with --docs, -k 0), which package main reports with exit 2.
func NewCmd(run func(context.Context, *Options) error, usage func(error) error) *cobra.Command {
	o := &Options{}
	var code, tests, docs bool
	cmd := &cobra.Command{
		Use:   `search "QUERY"`,
		Short: "Search the repository's index: ranked code hits",
		Long: `Search the index built by 'tern index' for QUERY (words, an identifier or a
question) and print the best hits, best first:

  path:start-end  kind symbol  score
      the hit's signature or first line

Hits come from full-text search fused with vector similarity when the index
has embeddings and Ollama can embed the query; otherwise the search is
lexical and tern says why, once, on stderr. Code ranks before tests,
documentation, changelogs, test data and configuration; a query that asks
for them ("tests", "docs", "changelog", …) lifts them (docs/search.md says
how far); --code, --tests and --docs keep one kind of file.
The score ranks hits within one search only. With --json, stdout carries
one JSON object per hit (docs/search.md lists the fields). The index is searched as it was last built: run
tern index after changing files.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Query = strings.TrimSpace(strings.Join(args, " "))
			if o.Query == "" {
				return usage(errors.New(`no query: tern search "QUERY"`))
			}
			var classes []string
			for _, c := range []struct {
				on    bool
				class string
			}{{code, index.ClassCode}, {tests, index.ClassTest}, {docs, index.ClassDocs}} {
				if c.on {
					classes = append(classes, c.class)
				}
			}
			if len(classes) > 1 {
				return usage(errors.New("--code, --tests and --docs exclude each other"))
			}
			if len(classes) == 1 {
				o.Search.Class = classes[0]
			}
			if o.Search.K < 1 {
				return usage(fmt.Errorf("-k must be at least 1, not %d", o.Search.K))
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVarP(&o.Search.K, "k", "k", 10, "how many hits to print")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object per hit")
	cmd.Flags().StringVar(&o.Search.Lang, "lang", "", "only files of this language, by name or extension (go, python or py, typescript or ts, markdown or md, …)")
	cmd.Flags().StringVar(&o.Search.PathPrefix, "path", "", "only files whose path starts with this prefix (a directory, or part of a name)")
	cmd.Flags().BoolVar(&code, "code", false, "only code: no tests, documentation, test data or configuration")
	cmd.Flags().BoolVar(&tests, "tests", false, "only tests (foo_test.go, test_foo.py, tests/, *.spec.ts, …)")
	cmd.Flags().BoolVar(&docs, "docs", false, "only documentation (Markdown, text, README, CHANGELOG, …)")
	cmd.Flags().StringVar(&o.EmbedModel, "embed-model", "", "Ollama embedding model to embed the query with, when it is not the index's (default: the config's embed_model, nomic-embed-text)")
	cmd.Flags().BoolVar(&o.NoEmbed, "no-embed", false, "no embeddings: lexical search only")
	return cmd
}

// Index is the workspace's code index as tern search uses it;
// rag.Workspace satisfies it.
type Index interface {
	Search(ctx context.Context, query string, opts rag.Options, refresh bool) (rag.Result, error)
	Languages(ctx context.Context) ([]index.LangCount, error)
	Close() error
}

// Env is what Run works with.
type Env struct {
	// Out gets the hits; Err the notices.
	Out, Err io.Writer
	// Open opens the workspace's code index for the search: lexical with
	// noEmbed; embedding the query with embedModel when it is set. root
	// names the workspace in messages.
	Open func(noEmbed bool, embedModel string) (ix Index, root string, err error)
}

// Run searches the index as it was last built and prints the hits: as
// aligned text on Out ("no hits" on Err when there are none), or one JSON
// object per hit. A lexical search says why on Err.
func Run(ctx context.Context, env Env, o *Options) error {
	ix, root, err := env.Open(o.NoEmbed, o.EmbedModel)
	if err != nil {
		return err
	}
	defer ix.Close()
	res, err := ix.Search(ctx, o.Query, o.Search, false)
	if err != nil {
		if errors.Is(err, rag.ErrNoIndex) {
			return fmt.Errorf("%w (in %s)", err, root)
		}
		return err
	}
	if res.Lexical {
		why := res.Why
		if o.NoEmbed {
			why = "search is lexical only (--no-embed)"
		}
		fmt.Fprintf(env.Err, "tern: %s\n", why)
	}
	if o.JSON {
		return indexview.WriteHitsJSON(env.Out, res.Hits)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(env.Err, "tern: no hits for %q%s\n", o.Query, langHint(ctx, ix, o.Search.Lang))
		return nil
	}
	indexview.WriteHits(env.Out, res.Hits)
	return nil
}

// langHint says, after a search with --lang found nothing, when no
// indexed file is in that language: which language was probably meant
// (an extension's, a longer or shorter name of one, a near spelling),
// and the languages the index holds.
func langHint(ctx context.Context, ix Index, lang string) string {
	if lang == "" {
		return ""
	}
	counts, err := ix.Languages(ctx)
	if err != nil || len(counts) == 0 {
		return ""
	}
	want := index.LangOf(lang)
	var names, held []string
	for _, c := range counts {
		if c.Lang == want {
			return "" // the language is there; the words are not
		}
		names = append(names, c.Lang)
		held = append(held, fmt.Sprintf("%s (%s)", c.Lang, words.Count(c.Files, "file")))
	}
	const most = 8
	if len(held) > most {
		held = append(held[:most], "…")
	}
	meant := ""
	if m := meantLang(want, names); m != "" {
		meant = fmt.Sprintf(" (did you mean --lang %s?)", m)
	}
	return fmt.Sprintf(": no indexed file is in %q%s; the index holds %s", lang, meant, strings.Join(held, ", "))
}

// meantLang is the language of names that lang probably means: one whose
// name starts it or that it starts ("golang": go), else the nearest
// spelling; "" for none.
func meantLang(lang string, names []string) string {
	var found []string
	for _, n := range names {
		if strings.HasPrefix(lang, n) || strings.HasPrefix(n, lang) {
			found = append(found, n)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return words.Nearest(lang, names)
}
