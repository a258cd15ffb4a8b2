package searchcmd

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/rag"
)

// usageErr marks the errors NewCmd wraps as usage errors.
type usageErr struct{ error }

// parse runs NewCmd on args and returns the options it would run with,
// or its error; nothing is searched.
func parse(args ...string) (*Options, error) {
	return cmdtest.Parse(func(run func(context.Context, *Options) error) *cobra.Command {
		return NewCmd(run, func(err error) error { return usageErr{err} })
	}, args...)
}

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		want  *Options
		usage string
	}{
		{args: []string{"parse", " config "}, want: &Options{Query: "parse  config", Search: rag.Options{K: 10}}},
		{args: []string{"-k", "3", "--tests", "--lang", "go", "--path", "cmd/", "--json", "x"},
			want: &Options{Query: "x", JSON: true, Search: rag.Options{K: 3, Lang: "go", PathPrefix: "cmd/", Class: index.ClassTest}}},
		{args: []string{"--code", "x"}, want: &Options{Query: "x", Search: rag.Options{K: 10, Class: index.ClassCode}}},
		{args: []string{"--embed-model", "bge-m3", "--no-embed", "--docs", "x"},
			want: &Options{Query: "x", EmbedModel: "bge-m3", NoEmbed: true, Search: rag.Options{K: 10, Class: index.ClassDocs}}},
		{args: []string{"--code", "--docs", "x"}, usage: "--code, --tests and --docs exclude each other"},
		{args: []string{"-k", "0", "x"}, usage: "-k must be at least 1, not 0"},
		{args: []string{" ", ""}, usage: `no query: tern search "QUERY"`},
		{args: nil, usage: `no query: tern search "QUERY"`},
	} {
		got, err := parse(tt.args...)
		var ue usageErr
		switch {
		case tt.usage != "":
			if !errors.As(err, &ue) || err.Error() != tt.usage || got != nil {
				t.Errorf("%q: %v, ran %v; want the usage error %q", tt.args, err, got, tt.usage)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case !reflect.DeepEqual(got, tt.want):
			t.Errorf("%q: %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

// fakeIndex answers every search with res, or err.
type fakeIndex struct {
	res    rag.Result
	langs  []index.LangCount
	err    error
	query  string
	opts   rag.Options
	closed bool
}

func (f *fakeIndex) Search(_ context.Context, query string, opts rag.Options, refresh bool) (rag.Result, error) {
	if refresh {
		return rag.Result{}, errors.New("tern search refreshed the index")
	}
	f.query, f.opts = query, opts
	return f.res, f.err
}
func (f *fakeIndex) Close() error { f.closed = true; return nil }
func (f *fakeIndex) Languages(context.Context) ([]index.LangCount, error) {
	return f.langs, nil
}

// search runs Run on ix with o, and returns stdout, stderr and the error.
func search(t *testing.T, ix *fakeIndex, o Options) (string, string, error) {
	t.Helper()
	var out, errOut strings.Builder
	var opened string
	env := Env{Out: &out, Err: &errOut, Open: func(noEmbed bool, embedModel string) (Index, string, error) {
		opened = fmt.Sprint(noEmbed, " ", embedModel)
		return ix, "/repo", nil
	}}
	err := Run(t.Context(), env, &o)
	if want := fmt.Sprint(o.NoEmbed, " ", o.EmbedModel); opened != want {
		t.Errorf("opened with %q, want %q", opened, want)
	}
	if !ix.closed {
		t.Error("the index was left open")
	}
	return out.String(), errOut.String(), err
}

var hit = rag.Hit{Path: "a.go", StartLine: 1, EndLine: 9, Kind: "func", Symbol: "Parse", Score: 0.5, Preview: "func Parse()"}

func TestRun(t *testing.T) {
	t.Parallel()
	opts := rag.Options{K: 3, Lang: "go"}
	ix := &fakeIndex{res: rag.Result{Hits: []rag.Hit{hit}}}
	out, errOut, err := search(t, ix, Options{Query: "parse", Search: opts, EmbedModel: "bge-m3"})
	if err != nil || out != "a.go:1-9  func Parse  0.5000\n    func Parse()\n" || errOut != "" {
		t.Errorf("text: %v\n%s%s", err, out, errOut)
	}
	if ix.query != "parse" || ix.opts != opts {
		t.Errorf("searched %q with %+v", ix.query, ix.opts)
	}

	out, _, err = search(t, &fakeIndex{res: rag.Result{Hits: []rag.Hit{hit}}}, Options{Query: "parse", JSON: true})
	if err != nil || !strings.HasPrefix(out, `{"path":"a.go","start_line":1,`) {
		t.Errorf("JSON: %v\n%s", err, out)
	}

	out, errOut, err = search(t, &fakeIndex{res: rag.Result{Lexical: true, Why: "search is lexical: Ollama is not running"}}, Options{Query: "zz"})
	if err != nil || out != "" || errOut != "tern: search is lexical: Ollama is not running\ntern: no hits for \"zz\"\n" {
		t.Errorf("no hits, lexical: %v\n%q", err, errOut)
	}
	_, errOut, _ = search(t, &fakeIndex{res: rag.Result{Lexical: true, Why: "whatever the index says"}}, Options{Query: "zz", NoEmbed: true})
	if !strings.HasPrefix(errOut, "tern: search is lexical only (--no-embed)\n") {
		t.Errorf("--no-embed: %q", errOut)
	}
	// A language the index does not hold: what was meant, and what it holds.
	langs := []index.LangCount{{Lang: "go", Files: 12}, {Lang: "markdown", Files: 3}, {Lang: "python", Files: 1}}
	for lang, want := range map[string]string{
		"golang": `tern: no hits for "zz": no indexed file is in "golang" (did you mean --lang go?); the index holds go (12 files), markdown (3 files), python (1 file)` + "\n",
		"pyhton": `no indexed file is in "pyhton" (did you mean --lang python?)`,
		"cobol":  `tern: no hits for "zz": no indexed file is in "cobol"; the index holds go (12 files)`,
		"go":     "tern: no hits for \"zz\"\n",
		"md":     "tern: no hits for \"zz\"\n", // markdown's extension
	} {
		_, errOut, _ = search(t, &fakeIndex{langs: langs}, Options{Query: "zz", Search: rag.Options{Lang: lang}})
		if !strings.Contains(errOut, want) {
			t.Errorf("--lang %s: %q, want %q", lang, errOut, want)
		}
	}
	out, errOut, _ = search(t, &fakeIndex{}, Options{Query: "zz", JSON: true})
	if out != "" || errOut != "" {
		t.Errorf("no hits in JSON: %q, %q; want nothing at all", out, errOut)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	_, _, err := search(t, &fakeIndex{err: rag.ErrNoIndex}, Options{Query: "x"})
	if !errors.Is(err, rag.ErrNoIndex) || !strings.HasSuffix(err.Error(), " (in /repo)") {
		t.Errorf("no index: %v, want the workspace named", err)
	}
	busy := errors.New("the index is busy")
	if _, _, err := search(t, &fakeIndex{err: busy}, Options{Query: "x"}); err != busy {
		t.Errorf("a failed search: %v", err)
	}
	bad := errors.New("bad config")
	err = Run(t.Context(), Env{Open: func(bool, string) (Index, string, error) { return nil, "", bad }}, &Options{Query: "x"})
	if err != bad {
		t.Errorf("an index that does not open: %v", err)
	}
}
