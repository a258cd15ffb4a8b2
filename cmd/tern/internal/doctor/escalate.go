package doctor

import (
	"context"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models/ollama"
)

// escalation reports escalate_model: whether a run can use it, its
// window, and on the same Ollama whether it fits in VRAM beside the
// session's model or makes the server unload one for the other. main is
// the server the session's model is on; plan the session model's.
func (d *doctor) escalation(ctx context.Context, cfg config.Config, main *backend.Conn, plan ollama.Plan) {
	name := cfg.EscalateModel
	r := d.r
	if name == "" {
		if cfg.EscalateHost != "" {
			r.note("Escalation", "escalate_host %s is set but escalate_model is not: nothing to escalate to", cfg.EscalateHost)
		}
		return
	}
	e, err := main.Escalation(ctx, cfg, d.VRAM)
	if err != nil {
		r.note("Escalation", "escalate_model %s cannot be used: %v", name, err)
		r.detail("a stuck turn stops instead, and /escalate and tern ask --escalate refuse")
		return
	}
	if e.Info.Name == main.Info.Name && cfg.EscalateHost == "" {
		r.note("Escalation", "escalate_model %s is the session's own model: a stuck turn stops instead", name)
		return
	}
	where := ""
	if cfg.EscalateHost != "" {
		where = " at " + e.Client.Host()
	}
	r.ok("Escalation", "%s%s: window %d tokens (%s); a stuck turn moves to it, or /escalate and tern ask --escalate", e.Info.Name, where, e.Plan.NumCtx, e.Plan.Source)
	if x := e.Plan.Experts; x != nil && !x.AllOnGPU {
		// Only Ollama's /api/show tells the experts apart.
		r.detail("mixture of experts: Ollama offloads about %d of its %d layers; %s", x.OllamaGPULayers, x.Layers, x.Speed(true))
		r.detail("`tern doctor --model %s` shows the llama-server settings that keep just its experts in RAM", e.Info.Name)
	}
	if cfg.EscalateHost != "" || main.Kind != config.BackendOllama {
		return
	}
	mainUse, escUse := resident(plan), resident(e.Plan)
	if mainUse == 0 || escUse == 0 {
		return
	}
	if mainUse+escUse > plan.VRAMBytes {
		r.detail("%s and %s do not fit in %s together (%s + %s): Ollama unloads one to load the other, and tern shows the load times",
			main.Info.Name, e.Info.Name, gib(plan.VRAMBytes), gib(mainUse), gib(escUse))
		return
	}
	r.detail("%s and %s fit in %s together: no reload", main.Info.Name, e.Info.Name, gib(plan.VRAMBytes))
}

// resident is what a plan keeps in VRAM: the weights it placed there and
// the window's KV cache (0 when unknown).
func resident(p ollama.Plan) int64 {
	if p.WeightsBytes == 0 || p.KVBytesPerToken == 0 {
		return 0
	}
	use := p.WeightsBytes + p.KVBytesPerToken*int64(p.NumCtx)
	if x := p.Experts; x != nil && !x.AllOnGPU {
		use += x.Bytes - x.RAMBytes
	}
	return min(use, p.VRAMBytes)
}
