package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/indexview"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/rag"
)

// searchOptions are tern search's arguments and flags.
type searchOptions struct {
	query string
	embed indexFlags
	// search holds -k, --lang, --path, and the class of --code, --tests
	// or --docs.
	search rag.Options
	json   bool
}

func (a *app) searchCommand() *cobra.Command {
	o := &searchOptions{}
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
documentation, test data and configuration unless the query asks for them
("tests", "docs", …); --code, --tests and --docs keep one kind of file.
The score ranks hits within one search only. With --json, stdout carries one JSON object per hit (see
README for the fields). The index is searched as it was last built: run
tern index after changing files.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.query = strings.TrimSpace(strings.Join(args, " "))
			if o.query == "" {
				return exitCodeError{exitUsage, errors.New("the query is empty")}
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
				return exitCodeError{exitUsage, errors.New("--code, --tests and --docs exclude each other")}
			}
			if len(classes) == 1 {
				o.search.Class = classes[0]
			}
			if o.search.K < 1 {
				return exitCodeError{exitUsage, fmt.Errorf("-k must be at least 1, not %d", o.search.K)}
			}
			return runCommand(cmd.Context(), a, o, a.search)
		},
	}
	cmd.Flags().IntVarP(&o.search.K, "k", "k", 10, "how many hits to print")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per hit")
	cmd.Flags().StringVar(&o.search.Lang, "lang", "", "only files of this language (go, python, typescript, markdown, …)")
	cmd.Flags().StringVar(&o.search.PathPrefix, "path", "", "only files whose path starts with this prefix (a directory, or part of a name)")
	cmd.Flags().BoolVar(&code, "code", false, "only code: no tests, documentation, test data or configuration")
	cmd.Flags().BoolVar(&tests, "tests", false, "only tests (foo_test.go, test_foo.py, tests/, *.spec.ts, …)")
	cmd.Flags().BoolVar(&docs, "docs", false, "only documentation (Markdown, text, README, CHANGELOG, …)")
	o.embed.add(cmd, "to embed the query with, when it is not the index's")
	return cmd
}

func (a *app) search(ctx context.Context, o *searchOptions) error {
	query, flags, opts, jsonOut := o.query, o.embed, o.search, o.json
	ctx, stop := interruptible(ctx)
	defer stop()
	c, _, err := a.openCodeIndex(indexFlags{noEmbed: flags.noEmbed})
	if err != nil {
		return err
	}
	if flags.embedModel != "" {
		c.QueryModel = rag.NewEmbedModel(flags.embedModel).Key()
	}
	defer c.Close()
	res, err := c.Search(ctx, query, opts, false)
	if err != nil {
		if errors.Is(err, rag.ErrNoIndex) {
			return fmt.Errorf("%w (in %s)", err, c.Root)
		}
		return err
	}
	if res.Lexical {
		why := res.Why
		if flags.noEmbed {
			why = "search is lexical only (--no-embed)"
		}
		fmt.Fprintf(a.stderr, "tern: %s\n", why)
	}
	if jsonOut {
		return indexview.WriteHitsJSON(a.stdout, res.Hits)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(a.stderr, "tern: no hits for %q\n", query)
		return nil
	}
	indexview.WriteHits(a.stdout, res.Hits)
	return nil
}
