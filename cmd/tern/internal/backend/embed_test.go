package backend

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
	"github.com/ternhq/tern/rag"
)

// allMiniLM is an embedding model without task prefixes.
var allMiniLM = func() ollamatest.Model {
	m := ollamatest.NomicEmbed()
	m.Name, m.Family, m.EmbeddingLength, m.EmbedDims = "all-minilm:latest", "bert", 384, 384
	return m
}()

// TestEmbedderAddsTaskPrefixes: documents and queries reach the model with
// its task prefixes; a missing model's error says what to pull.
func TestEmbedderAddsTaskPrefixes(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.NomicEmbed(), allMiniLM))
	client, err := ollama.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key    string
		query  bool
		prefix string
		dims   int
	}{
		{"nomic-embed-text (task prefixes)", false, "search_document: ", 768},
		{"nomic-embed-text (task prefixes)", true, "search_query: ", 768},
		{"all-minilm", true, "", 384},
	} {
		vecs, err := Embedder{Client: client, Query: tt.query}.Embed(t.Context(), tt.key, []string{"func Total"})
		if err != nil {
			t.Fatal(err)
		}
		want := ollamatest.Embedding(tt.prefix+"func Total", tt.dims)
		if !slices.Equal(vecs[0], want) {
			t.Errorf("%s (query %v): the text was not sent as %q", tt.key, tt.query, tt.prefix+"func Total")
		}
	}
	_, err = Embedder{Client: client}.Embed(t.Context(), "mxbai-embed-large (task prefixes)", []string{"x"})
	if err == nil || err.Error() != "embedding model mxbai-embed-large is not installed (run `ollama pull mxbai-embed-large`)" {
		t.Errorf("missing model: %v", err)
	}
}

// TestCheckEmbed: whether the index can get embeddings, and the fix when
// it cannot, from Ollama and from an OpenAI-compatible server.
func TestCheckEmbed(t *testing.T) {
	t.Parallel()
	ol := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	oai := openaitest.New(t, openaitest.WithEmbeddings("nomic-embed-text", 768))
	bare := openaitest.New(t)
	server := func(cfg config.Config) EmbedServer {
		s := NewEmbedServer(cfg)
		if s == nil {
			t.Fatalf("no embedding server for %+v", cfg)
		}
		return s
	}
	ollamaCfg := config.Default()
	ollamaCfg.Host = ol.URL()
	openaiCfg := config.Default()
	openaiCfg.BaseURL = oai.URL()
	bareCfg := config.Default()
	bareCfg.BaseURL = bare.URL()
	vllmCfg := config.Default()
	vllmCfg.BaseURL = openaitest.New(t, openaitest.WithFlavor(openaitest.VLLM)).URL()
	for _, tt := range []struct {
		name  string
		cfg   config.Config
		model string
		want  string // "" when it can embed
		not   string // a fix that is not this server's
	}{
		{"ollama, installed", ollamaCfg, "nomic-embed-text", "", ""},
		{"ollama, not installed", ollamaCfg, "mxbai-embed-large", "embedding model mxbai-embed-large is not installed (run `ollama pull mxbai-embed-large`)", ""},
		{"ollama, a chat model", ollamaCfg, "qwen3:8b", "qwen3:8b is not an embedding model", ""},
		{"openai, serves embeddings", openaiCfg, "nomic-embed-text", "", ""},
		{"openai, no embeddings", bareCfg, "nomic-embed-text", "cannot embed with nomic-embed-text", ""},
		// --embeddings is llama-server's flag; vLLM has none such.
		{"vLLM, a chat model", vllmCfg, "nomic-embed-text", "cannot embed with nomic-embed-text", "--embeddings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckEmbed(t.Context(), server(tt.cfg), rag.NewEmbedModel(tt.model))
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) || tt.not != "" && strings.Contains(got, tt.not) {
				t.Errorf("CheckEmbed = %q, want %q", got, tt.want)
			}
		})
	}
	down := config.Default()
	down.Host = "127.0.0.1:1"
	if got := CheckEmbed(t.Context(), server(down), rag.NewEmbedModel("nomic-embed-text")); !strings.Contains(got, "Ollama is not reachable at") {
		t.Errorf("no server: %q", got)
	}
	var ee EmbedError
	_, err := Embedder{Client: server(down)}.Embed(t.Context(), "nomic-embed-text", []string{"x"})
	if !errors.As(err, &ee) || !strings.Contains(ee.Error(), "start it with `ollama serve`") {
		t.Errorf("embedding with no server: %v", err)
	}
}

// TestQueryEmbeddingOfASilentServer: a search's query waits a bounded
// time for its vector from a server that takes the connection and never
// answers, then says so (the search goes on lexically).
func TestQueryEmbeddingOfASilentServer(t *testing.T) {
	t.Parallel()
	client, err := ollama.New(ollamatest.Silent(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Embedder{Client: client, Query: true, Wait: 100 * time.Millisecond}.Embed(t.Context(), rag.NewEmbedModel("nomic-embed-text").Key(), []string{"where is the loop?"})
	if !errors.Is(err, models.ErrNoAnswer) || err.Error() != "the server at "+client.Host()+" did not answer within 100ms" {
		t.Errorf("%v", err)
	}
}
