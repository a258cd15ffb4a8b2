package backend

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
)

// Escalation connects escalate_model, the model a stuck turn moves to:
// on this server when escalate_host is unset (another installed Ollama
// model, or another model an OpenAI-compatible server lists), else on
// escalate_host, reached as Connect reaches a server (Ollama or
// OpenAI-compatible, asked). Its window is planned for it; vram is asked
// of its own server only when that is another. The returned connection's
// Why says where it runs, for notices.
func (b *Conn) Escalation(ctx context.Context, cfg config.Config, vram func(context.Context, config.Config) int64) (*Conn, error) {
	ecfg := cfg.Escalation()
	name := ecfg.Model
	if cfg.EscalateHost != "" {
		e, err := Connect(ctx, ecfg, vram)
		if err != nil {
			return nil, err
		}
		e.Why = "escalate_model at " + e.Client.Host()
		return e, nil
	}
	if b.Kind == config.BackendOllama {
		return b.Another(ctx, ecfg, name, "escalate_model")
	}
	if _, ok := models.Installed(name, b.Installed); !ok {
		return nil, fmt.Errorf("%s does not serve %s (it serves %s): start a server with it and set escalate_host to its address", b.Client.Host(), name, modelNames(b.Installed))
	}
	e, err := connectOpenAI(ctx, ecfg, b.Addr)
	if err != nil {
		return nil, err
	}
	e.Why = "escalate_model"
	return e, nil
}

// modelNames lists the models' names for a message.
func modelNames(ms []models.ModelInfo) string {
	if len(ms) == 0 {
		return "none"
	}
	s := ms[0].Name
	for _, m := range ms[1:] {
		s += ", " + m.Name
	}
	return s
}
