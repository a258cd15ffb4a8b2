package backend

import (
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// TestResolve: --backend decides when given; otherwise the address given
// is asked what it is, and with none tern talks to Ollama at its default.
func TestResolve(t *testing.T) {
	t.Parallel()
	ol := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	oai := openaitest.New(t)
	cfg := func(edit func(*config.Config)) config.Config {
		c := config.Default()
		edit(&c)
		return c
	}
	for _, tt := range []struct {
		name       string
		cfg        config.Config
		kind, addr string
	}{
		{"nothing given", cfg(func(*config.Config) {}), config.BackendOllama, ""},
		{"an Ollama host", cfg(func(c *config.Config) { c.Host = ol.URL() }), config.BackendOllama, ol.URL()},
		{"an OpenAI server as host", cfg(func(c *config.Config) { c.Host = oai.URL() }), config.BackendOpenAI, oai.URL()},
		{"an OpenAI server as base_url", cfg(func(c *config.Config) { c.BaseURL = oai.URL() }), config.BackendOpenAI, oai.URL()},
		{"Ollama as base_url", cfg(func(c *config.Config) { c.BaseURL = ol.URL() }), config.BackendOllama, ol.URL()},
		{"--host beats base_url", cfg(func(c *config.Config) { c.BaseURL = oai.URL(); c.SetHost(ol.URL()) }), config.BackendOllama, ol.URL()},
		{"--backend ollama asks nothing", cfg(func(c *config.Config) { c.Backend, c.Host = config.BackendOllama, oai.URL() }), config.BackendOllama, oai.URL()},
		{"--backend openai", cfg(func(c *config.Config) { c.Backend, c.BaseURL = config.BackendOpenAI, "http://127.0.0.1:1" }), config.BackendOpenAI, "http://127.0.0.1:1"},
		{"a base_url nothing answers", cfg(func(c *config.Config) { c.BaseURL = "http://127.0.0.1:1" }), config.BackendOpenAI, "http://127.0.0.1:1"},
		{"a host nothing answers", cfg(func(c *config.Config) { c.Host = "127.0.0.1:1" }), config.BackendOllama, "127.0.0.1:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, addr, err := Resolve(t.Context(), tt.cfg)
			if err != nil || kind != tt.kind || strings.TrimRight(addr, "/") != strings.TrimRight(tt.addr, "/") {
				t.Errorf("Resolve = %q, %q, %v; want %q, %q", kind, addr, err, tt.kind, tt.addr)
			}
		})
	}
	_, _, err := Resolve(t.Context(), cfg(func(c *config.Config) { c.Backend = config.BackendOpenAI }))
	if err == nil || !strings.Contains(err.Error(), "--backend openai needs the server's address") {
		t.Errorf("--backend openai without an address: %v", err)
	}
}
