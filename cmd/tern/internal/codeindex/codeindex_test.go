package codeindex

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/index/indextest"
	"github.com/ternhq/tern/models/ollamatest"
)

// workspace is a repository of one Go file, and the config of a fake
// Ollama serving ms, embedding with embedModel.
func workspace(t *testing.T, embedModel string, ms ...ollamatest.Model) (string, config.Config) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Total adds the bill up.\nfunc Total() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.NewServer(ollamatest.WithModels(ms...))
	t.Cleanup(srv.Close)
	cfg := config.Default()
	cfg.Host, cfg.EmbedModel = srv.URL(), embedModel
	return root, cfg
}

// open opens c's index for an update, as tern index does.
func open(t *testing.T, c *Index) *index.Index {
	t.Helper()
	ix, err := c.Open(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ix
}

func TestPlan(t *testing.T) {
	t.Parallel()
	nomic := ollamatest.NomicEmbed()
	for _, tt := range []struct {
		name     string
		model    string
		served   []ollamatest.Model
		noEmbed  bool
		embed    bool   // whether the plan embeds with the model
		why      string // a part of why it does not
		previous string // embed the index first with this model
	}{
		{name: "embeddings off", model: nomic.Name, served: []ollamatest.Model{nomic}, noEmbed: true},
		{name: "the model is served", model: nomic.Name, served: []ollamatest.Model{nomic}, embed: true},
		{name: "the model is not installed", model: nomic.Name, served: []ollamatest.Model{ollamatest.Qwen3()}, why: "ollama pull nomic-embed-text"},
		{name: "not an embedding model", model: "qwen3:8b", served: []ollamatest.Model{ollamatest.Qwen3()}, why: "qwen3:8b is not an embedding model"},
		{name: "vectors of another model", model: nomic.Name, served: []ollamatest.Model{nomic}, embed: true, previous: "other-embed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, cfg := workspace(t, tt.model, tt.served...)
			c := New(root, cfg)
			c.SetNoEmbed(tt.noEmbed)
			ix := open(t, c)
			if tt.previous != "" {
				if _, err := ix.Update(t.Context(), index.Options{Embedder: &indextest.Embedder{}, Model: tt.previous}); err != nil {
					t.Fatal(err)
				}
			}
			p, err := c.Plan(t.Context(), ix)
			if err != nil {
				t.Fatal(err)
			}
			if embeds := p.Model.Name != ""; embeds != tt.embed || !strings.Contains(p.Why, tt.why) || (tt.why == "") != (p.Why == "") || p.Previous != tt.previous {
				t.Errorf("plan = %+v; want embedding %v, why %q, previous %q", p, tt.embed, tt.why, tt.previous)
			}
			if p.Model.Name != "" && p.Model.Key() != c.want.Key() {
				t.Errorf("plans %s, the config says %s", p.Model.Key(), c.want.Key())
			}
		})
	}
}

func TestUpdateAsPlanned(t *testing.T) {
	t.Parallel()
	root, cfg := workspace(t, "nomic-embed-text", ollamatest.NomicEmbed())
	c := New(root, cfg)
	ix := open(t, c)
	p, err := c.Plan(t.Context(), ix)
	if err != nil {
		t.Fatal(err)
	}
	var phases []index.Phase
	st, err := c.Update(t.Context(), ix, p, func(pr index.Progress) { phases = append(phases, pr.Phase) })
	if err != nil {
		t.Fatal(err)
	}
	model, _, err := ix.Embedding(t.Context())
	if err != nil || st.Indexed != 1 || st.Embedded == 0 || model != p.Model.Key() || len(phases) == 0 || phases[len(phases)-1] != index.PhaseDone {
		t.Errorf("update: %+v, embedded with %q (%v), phases %v", st, model, err, phases)
	}

	lexical := Plan{Why: "whatever"}
	st, err = c.Update(t.Context(), ix, lexical, nil)
	if err != nil || st.Embedded != 0 {
		t.Errorf("an update without a model: %+v, %v", st, err)
	}
}

func TestSetNoEmbedSearchesLexically(t *testing.T) {
	t.Parallel()
	root, cfg := workspace(t, "nomic-embed-text", ollamatest.NomicEmbed())
	c := New(root, cfg)
	if c.Embedder == nil {
		t.Fatal("a valid host gives no query embedder")
	}
	c.SetNoEmbed(true)
	if c.Embedder != nil {
		t.Error("--no-embed left the query embedder on")
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	for _, p := range []string{db, db + "-wal", db + "-shm", filepath.Join(dir, "other")} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	if err := Remove(db); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || left[0].Name() != "other" {
		t.Errorf("left %v, want only what is not the index", left)
	}
	if err := Remove(db); err != nil {
		t.Errorf("removing a removed index: %v", err)
	}
	if err := Remove(filepath.Join(dir, "other", "x")); err == nil || !strings.HasPrefix(err.Error(), "delete the index: ") || errors.Is(err, os.ErrNotExist) {
		t.Errorf("a path that cannot be deleted: %v", err)
	}
}
