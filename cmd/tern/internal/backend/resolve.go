package backend

import (
	"context"
	"errors"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// Resolve decides which backend serves this run, and at which
// address. --backend decides when given. Otherwise an address that was
// given (base_url, --host, OLLAMA_HOST) is asked: a server that answers
// /api/version is Ollama, one that only answers /v1/models is
// OpenAI-compatible. With no address at all, it is Ollama at its default.
// Each question is bounded by stream.contact_timeout: a server that takes
// the connection and answers nothing is an error (models.ErrNoAnswer),
// worded with what to check.
func Resolve(ctx context.Context, cfg config.Config) (kind, addr string, err error) {
	switch cfg.Backend {
	case config.BackendOllama:
		return config.BackendOllama, cfg.Host, nil
	case config.BackendOpenAI:
		addr = cfg.OpenAIAddr()
		if addr == "" {
			return "", "", errors.New("--backend openai needs the server's address: set base_url in the config (e.g. http://127.0.0.1:8080 for llama-server) or pass --host")
		}
		return config.BackendOpenAI, addr, nil
	}
	addr, fromHost := cfg.Addr()
	if addr == "" {
		return config.BackendOllama, "", nil
	}
	probe := addr
	if fromHost {
		// Read as Ollama reads OLLAMA_HOST: "localhost" means port 11434.
		oc, err := ollama.New(addr)
		if err != nil {
			return config.BackendOllama, addr, nil // Connect words a bad host
		}
		probe = oc.Host()
	}
	c, err := openai.New(probe, cfg.APIKey())
	if err != nil {
		return config.BackendOpenAI, addr, nil // connectOpenAI words a bad base_url
	}
	c.ContactTimeout = cfg.Stream.ContactTimeout.Duration
	_, ok, err := c.IsOllama(ctx)
	switch {
	case errors.Is(err, models.ErrNoAnswer):
		return "", "", ExplainSilent(err)
	case ok && fromHost:
		return config.BackendOllama, addr, nil
	case ok:
		return config.BackendOllama, c.Host(), nil
	case err == nil: // something answered, not as Ollama does
		if _, err := c.Models(ctx); err == nil || errors.Is(err, openai.ErrUnauthorized) {
			return config.BackendOpenAI, probe, nil
		}
	}
	if !fromHost {
		return config.BackendOpenAI, addr, nil // let the OpenAI path say what is wrong
	}
	return config.BackendOllama, addr, nil
}
