package doctor

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
)

// experts reports how a mixture of experts runs with the plan: where its
// experts go, the speed class of each layout, and what each server needs
// for it. Ollama v0.17 offloads whole layers by itself; llama-server keeps
// just the experts in RAM when told to (--n-cpu-moe).
func (d *doctor) experts(info models.ModelInfo, plan ollama.Plan, running []models.RunningModel) {
	e := plan.Experts
	if e == nil {
		return
	}
	r := d.r
	if e.AllOnGPU {
		r.ok("Experts", "mixture of experts: all %d layers' experts fit on the GPU with the window", e.Layers)
		r.detail("speed: %s", e.Speed(false))
		return
	}
	where := fmt.Sprintf("%d of %d layers' experts stay in RAM (%s", e.CPULayers, e.Layers, gib(e.RAMBytes))
	if e.RAMFree > 0 {
		where += fmt.Sprintf(" of %s free", gib(e.RAMFree))
	}
	where += ")"
	if e.RAMFits {
		r.ok("Experts", "mixture of experts: %s; the GPU holds the rest and the %d-token window", where, e.NumCtx)
	} else {
		r.bad("Experts", "mixture of experts: %s: not enough free RAM, they would be read from disk for every token", where)
		r.detail("close programs to free RAM, or pull a smaller quantization of %s", info.Name)
	}

	// llama-server: the experts-in-RAM layout the plan is for.
	r.detail("llama-server keeps just the experts in RAM, attention and KV cache on the GPU:")
	r.detail("  %s", e.Speed(false))
	r.detail("  llama-server -m %s --jinja -c %d -ngl 99 --n-cpu-moe %d", cmp.Or(e.Path, "MODEL.gguf"), e.NumCtx, e.CPULayers)
	r.detail("  (builds without --n-cpu-moe: -ot '%s')", ollama.CPUMoEPattern(e.CPULayers))
	r.detail("  then: tern --backend openai --host http://127.0.0.1:8080")

	// Ollama: what it does by itself.
	label := "Ollama"
	if d.version != "" {
		label += " " + d.version
	}
	r.note("Placement", "%s offloads whole layers, experts and attention together: about %d of %d fit on the GPU with this window, the other %d run on the CPU",
		label, e.OllamaGPULayers, e.Layers, e.Layers-e.OllamaGPULayers)
	r.detail("  %s; long prompts are read on the CPU for those layers too", e.Speed(true))
	for _, m := range running {
		if m.Name == info.Name && m.SizeBytes > 0 {
			r.detail("  loaded now: %s of its %s in VRAM (%.0f%%)", gib(m.VRAMBytes), gib(m.SizeBytes), 100*float64(m.VRAMBytes)/float64(m.SizeBytes))
		}
	}
	if n := info.ModelfileNumGPU; n != nil {
		r.detail("  its Modelfile sets num_gpu %d: Ollama offloads %d layers whatever fits", *n, *n)
		return
	}
	r.detail("  Ollama chooses the layers by itself (num_gpu unset); if loading fails for lack of memory, set num_gpu %d:", e.OllamaGPULayers)
	r.detail("  `ollama show %s --modelfile > Modelfile`, add `PARAMETER num_gpu %d`, `ollama create %s-gpu%d -f Modelfile`",
		info.Name, e.OllamaGPULayers, baseName(info.Name), e.OllamaGPULayers)
}

// baseName is a model's name without its tag: "qwen3.6:35b-a3b" →
// "qwen3.6-35b-a3b", a name `ollama create` takes.
func baseName(name string) string {
	out := []rune(name)
	for i, c := range out {
		if c == ':' || c == '/' {
			out[i] = '-'
		}
	}
	return string(out)
}

// gib writes bytes in GiB (MiB below one), as the plan's arithmetic does.
func gib(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// llamaExperts plans a mixture of experts llama-server runs from a file
// on this machine (/props model_path), for the window it serves: the
// --n-cpu-moe that keeps the rest on the GPU, checked against the free
// RAM. The server does not say how it placed them, so this is the
// setting to start it with, not a finding. A file not found here (a
// server on another machine) or a dense model says nothing.
func (d *doctor) llamaExperts(ctx context.Context, cfg config.Config, path string, window int) {
	if path == "" || !filepath.IsAbs(path) {
		return
	}
	if _, err := os.Stat(path); err != nil {
		return
	}
	info, err := ollama.ReadGGUF(path)
	if err != nil || !info.MoE() {
		return
	}
	r := d.r
	plan := ollama.PlanContext(info, ollama.Memory{VRAM: d.VRAM(ctx, cfg), RAM: backend.RAM(cfg)}, window)
	e := plan.Experts
	if e == nil {
		r.note("Experts", "mixture of experts (%s), but its expert sizes are unknown", path)
		return
	}
	if e.AllOnGPU {
		r.ok("Experts", "mixture of experts: all %d layers' experts fit on the %s GPU with the %d-token window", e.Layers, gib(plan.VRAMBytes), window)
		return
	}
	where := fmt.Sprintf("with the %d-token window on %s of VRAM, %d of %d layers' experts belong in RAM (%s", window, gib(plan.VRAMBytes), e.CPULayers, e.Layers, gib(e.RAMBytes))
	if e.RAMFree > 0 {
		where += fmt.Sprintf(" of %s free", gib(e.RAMFree))
	}
	where += ")"
	if e.RAMFits {
		r.ok("Experts", "mixture of experts: %s", where)
	} else {
		r.bad("Experts", "mixture of experts: %s: not enough free RAM, they would be read from disk for every token", where)
	}
	for _, line := range plan.Explanation {
		if strings.HasPrefix(line, "the GPU must hold") || strings.HasPrefix(line, "mixture of experts:") {
			r.detail("%s", line)
		}
	}
	r.detail("%s", e.Speed(false))
	r.detail("start llama-server with -ngl 99 --n-cpu-moe %d (builds without it: -ot '%s');", e.CPULayers, ollama.CPUMoEPattern(e.CPULayers))
	r.detail("it does not say how it placed them: if it runs out of VRAM or crawls, this is the setting for the plan")
}
