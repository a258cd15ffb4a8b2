package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/rag"
)

// EmbedServer makes embeddings for the index; *ollama.Client and
// *openai.Client satisfy it.
type EmbedServer interface {
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
	Host() string
}

// NewEmbedServer returns the client that embeds for the index as cfg
// says, or nil when its address is not valid (which shows as "not
// reachable"). With an OpenAI-compatible backend, embeddings come from
// embed_base_url, else from the chat server itself.
func NewEmbedServer(cfg config.Config) EmbedServer {
	if cfg.UsesOpenAI() {
		c, err := openai.New(cmp.Or(cfg.EmbedBaseURL, cfg.OpenAIAddr()), cfg.APIKey())
		if err != nil {
			return nil
		}
		return c
	}
	c, err := ollama.New(cfg.Host)
	if err != nil {
		return nil
	}
	return c
}

// checkEmbedOpenAI embeds one word to learn whether the server can: an
// OpenAI-compatible server does not list what its models can do.
func checkEmbedOpenAI(ctx context.Context, c *openai.Client, m rag.EmbedModel) string {
	ctx, cancel := context.WithTimeout(ctx, embedCheckTimeout)
	defer cancel()
	_, err := c.Embed(ctx, m.Name, []string{m.Doc + "tern"})
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the server at %s did not answer within %s", c.Host(), embedCheckTimeout)
	}
	return embedProblemOf(c, err, m.Name)
}

// embedProblemOf says in words what stops embeddings on server.
func embedProblemOf(server EmbedServer, err error, model string) string {
	c, ok := server.(*openai.Client)
	if !ok {
		return embedProblem(err, server.Host(), model)
	}
	var se *openai.ServerError
	switch {
	case errors.Is(err, models.ErrUnreachable):
		return fmt.Sprintf("nothing answers at %s (set embed_base_url to a server that embeds, e.g. `llama-server -m nomic-embed-text-v1.5.Q8_0.gguf --embeddings --port 8081`)", c.Host())
	case errors.Is(err, models.ErrModelNotFound):
		return fmt.Sprintf("the server at %s does not serve %s (set embed_model to the name it lists)", c.Host(), model)
	case errors.As(err, &se):
		return fmt.Sprintf("the server at %s cannot embed with %s: %s (serve an embedding model, on this server or another, and point embed_base_url and embed_model at it)", c.Host(), model, se.Message)
	}
	return err.Error()
}
