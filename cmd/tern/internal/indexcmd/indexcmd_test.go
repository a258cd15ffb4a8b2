package indexcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	cmdtest.CheckParse(t, NewCmd, []cmdtest.Case[Options]{
		{Args: nil},
		{Args: []string{"some/dir", "--rebuild", "--embed-model", "m"}, Want: Options{Dir: "some/dir", Rebuild: true, EmbedModel: "m"}},
		{Args: []string{"--no-embed"}, Want: Options{NoEmbed: true}},
		{Args: []string{"a", "b"}, Err: "index accepts one directory at most, not 2 arguments (a b)"},
	})
}

// fixture is a repository of two files and the environment of tern index
// over it, against a fake Ollama serving ms.
type fixture struct {
	root     string
	out, err strings.Builder
	env      Env
	opened   []string
}

func newFixture(t *testing.T, ms ...ollamatest.Model) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir()}
	os.WriteFile(filepath.Join(f.root, "bill.go"), []byte("package bill\n\n// Total adds the bill up.\nfunc Total() int { return 1 }\n"), 0o644)
	os.WriteFile(filepath.Join(f.root, "README.md"), []byte("# Bills\n\nHow bills are added.\n"), 0o644)
	srv := ollamatest.NewServer(ollamatest.WithModels(ms...))
	t.Cleanup(srv.Close)
	f.env = Env{Out: &f.out, Err: &f.err, Open: func(embedModel string, noEmbed bool) (*codeindex.Index, error) {
		cfg := config.Default()
		cfg.Host = srv.URL()
		if embedModel != "" {
			cfg.EmbedModel = embedModel
		}
		f.opened = append(f.opened, embedModel)
		c := codeindex.New(f.root, cfg)
		c.SetNoEmbed(noEmbed)
		return c, nil
	}}
	return f
}

func TestRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.NomicEmbed())
	if err := Run(t.Context(), f.env, &Options{}); err != nil {
		t.Fatal(err)
	}
	out := f.out.String()
	if !strings.HasPrefix(out, "indexed "+f.root+" in ") || !strings.Contains(out, "  files    2 seen · 2 indexed · 0 unchanged · 0 skipped\n") ||
		!strings.Contains(out, "chunks embedded with nomic-embed-text") {
		t.Errorf("summary:\n%s", out)
	}
	if f.err.Len() != 0 {
		t.Errorf("a quick run off a terminal said:\n%s", f.err.String())
	}
	if _, err := os.Stat(filepath.Join(f.root, ".tern", "index.db")); err != nil {
		t.Errorf("no index: %v", err)
	}

	f.out.Reset()
	if err := Run(t.Context(), f.env, &Options{}); err != nil || !strings.HasPrefix(f.out.String(), "index of "+f.root+" is up to date") {
		t.Errorf("second run: %v\n%s", err, f.out.String())
	}

	f.out.Reset()
	if err := Run(t.Context(), f.env, &Options{Rebuild: true}); err != nil || !strings.Contains(f.out.String(), "2 indexed") ||
		f.err.String() != "tern: deleted .tern/index.db; building it from scratch\n" {
		t.Errorf("--rebuild: %v\n%s%s", err, f.out.String(), f.err.String())
	}
}

func TestRunWithoutEmbeddings(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.Qwen3())
	if err := Run(t.Context(), f.env, &Options{EmbedModel: "qwen3:8b"}); err != nil {
		t.Fatal(err)
	}
	if want := "tern: indexing without embeddings (search will be lexical only): qwen3:8b is not an embedding model"; !strings.HasPrefix(f.err.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to start %q", f.err.String(), want)
	}
	if !strings.Contains(f.out.String(), "  vectors  none: search is lexical only\n") || f.opened[0] != "qwen3:8b" {
		t.Errorf("summary:\n%s (opened with %q)", f.out.String(), f.opened)
	}

	f = newFixture(t)
	if err := Run(t.Context(), f.env, &Options{NoEmbed: true}); err != nil || f.err.Len() != 0 || !strings.Contains(f.out.String(), "lexical only") {
		t.Errorf("--no-embed: %v, said %q\n%s", err, f.err.String(), f.out.String())
	}
}

// cancelOnWrite cancels its context at the first write: Ctrl+C as the
// progress bar first shows.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(p []byte) (int, error) { c.cancel(); return len(p), nil }

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, ollamatest.NomicEmbed())
	ctx, cancel := context.WithCancel(t.Context())
	f.env.Err, f.env.TTY = cancelOnWrite{cancel}, true
	if err := Run(ctx, f.env, &Options{NoEmbed: true}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("a run stopped while it indexed: %v, want ErrInterrupted", err)
	}
	broken := errors.New("bad config")
	f.env.Open = func(string, bool) (*codeindex.Index, error) { return nil, broken }
	if err := Run(t.Context(), f.env, &Options{}); err != broken {
		t.Errorf("an index that does not open: %v", err)
	}
}
