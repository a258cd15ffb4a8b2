package ollama

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ternhq/tern/models"
)

// DefaultVRAM is the budget planned for when none is known: the 8 GiB
// laptop GPU tern is built for.
const DefaultVRAM int64 = 8 << 30

// The arithmetic of the planner. The constants are deliberately a little
// pessimistic: a window that spills part of the model to the CPU costs far
// more than one a few thousand tokens smaller.
const (
	// kvElementBytes is the size of one cached K or V value: Ollama keeps
	// the KV cache in f16 unless OLLAMA_KV_CACHE_TYPE says otherwise.
	kvElementBytes = 2
	// weightsOverheadPercent covers what a loaded model needs beyond its
	// file size: the CUDA context and per-layer allocation padding.
	weightsOverheadPercent = 10
	// computeBufferBytes is llama.cpp's scratch space for the compute graph
	// of one batch. It is several hundred MiB for 4B–8B models (it grows
	// with the vocabulary and batch size), so a fixed 512 MiB is reserved.
	computeBufferBytes = 512 << 20
	// fallbackNumCtx is used when the architecture numbers are unknown.
	fallbackNumCtx = 8192
)

// contextSteps are the windows the planner chooses from, smallest first.
var contextSteps = [...]int{4096, 8192, 12288, 16384, 24576, 32768}

// Memory is what a plan may fill: the GPU's memory, and the system RAM
// free for weights that stay off the GPU (0: unknown).
type Memory struct {
	VRAM, RAM int64
}

// Plan is the chosen context window and the arithmetic behind it.
type Plan struct {
	NumCtx int
	// Source says where NumCtx came from: "--ctx" (the user's override),
	// "planned" (the largest window that fits) or "fallback" (the
	// architecture or size was unknown).
	Source string
	// KVBytesPerToken is the KV cache one token of context costs (0: unknown).
	KVBytesPerToken int64
	// WeightsBytes is the planned footprint of the weights, overhead and
	// compute buffers included (0: unknown).
	WeightsBytes int64
	// VRAMBytes is the budget planned for; RAMBytes the free system RAM
	// (0: unknown), which only a mixture of experts plans with.
	VRAMBytes int64
	RAMBytes  int64
	// TrainedMax is the model's trained context length (0: unknown).
	TrainedMax int
	// Requested is a --ctx above TrainedMax that was clamped to it (0: none).
	// Ollama v0.17.4 serves at most the trained context whatever num_ctx
	// says, and says so only in its own log.
	Requested int
	// Candidates are the windows considered, smallest first.
	Candidates []Candidate
	// Explanation shows the arithmetic, one line each, for `tern doctor`.
	Explanation []string
	// Experts is the placement of a mixture of experts' weights between
	// the GPU and system RAM (moe.go); nil for a dense model, or one whose
	// expert sizes are unknown.
	Experts *Experts
}

// Candidate is one window the planner considered.
type Candidate struct {
	NumCtx  int
	KVBytes int64
	Fits    bool
}

// PlanContext chooses num_ctx for a session: override when it is positive,
// else the largest of 4k, 8k, 12k, 16k, 24k and 32k whose KV cache fits in
// mem.VRAM next to the weights, never above the trained maximum. info
// needs SizeBytes (from List) as well as the architecture numbers (from
// Show). A mem.VRAM of 0 or less means DefaultVRAM.
//
// A mixture of experts whose weights do not all fit is planned with its
// routed experts in RAM (planExperts): the window then needs VRAM only for
// the other weights.
func PlanContext(info models.ModelInfo, mem Memory, override int) Plan {
	p := Plan{TrainedMax: info.ContextLength, VRAMBytes: mem.VRAM, RAMBytes: max(mem.RAM, 0)}
	say := func(format string, args ...any) {
		p.Explanation = append(p.Explanation, fmt.Sprintf(format, args...))
	}
	if p.VRAMBytes <= 0 {
		p.VRAMBytes = DefaultVRAM
		say("VRAM budget unknown: planning for %s (set --vram)", human(p.VRAMBytes))
	}
	name := info.Name
	if name == "" {
		name = "model"
	}
	if p.TrainedMax > 0 {
		say("%s: trained context %d tokens", name, p.TrainedMax)
	} else {
		say("%s: trained context unknown", name)
	}

	var weightsHow string
	kv := kvModel(info)
	p.KVBytesPerToken = kv.perToken
	p.WeightsBytes, weightsHow = weightsFootprint(info)
	if kv.unknown == "" {
		say("KV cache per token: %s = %s", kv.how[0], human(p.KVBytesPerToken))
		for _, line := range kv.how[1:] {
			say("  %s", line)
		}
	} else {
		p.KVBytesPerToken = 0
		say("KV cache per token: unknown (%s)", kv.unknown)
	}
	if p.WeightsBytes > 0 {
		say("weights: %s = %s", weightsHow, human(p.WeightsBytes))
	} else {
		say("weights: unknown (%s)", weightsHow)
	}

	switch {
	case p.KVBytesPerToken == 0 || p.WeightsBytes == 0:
		p.NumCtx, p.Source = capTrained(fallbackNumCtx, p.TrainedMax), "fallback"
		if p.NumCtx < fallbackNumCtx {
			say("cannot size the KV cache: using a conservative 8k window, capped at the trained %d tokens", p.NumCtx)
		} else {
			say("cannot size the KV cache: using a conservative 8k window (%d tokens); set --ctx to choose another", p.NumCtx)
		}
	case !p.planExperts(info, kv, say):
		free := p.VRAMBytes - p.WeightsBytes
		say("VRAM %s − weights %s = %s left for the KV cache", human(p.VRAMBytes), human(p.WeightsBytes), human(max(free, 0)))
		p.planWindows(kv, free, say)
	}

	label := fmt.Sprintf("--ctx %d", override)
	if override > 0 && p.TrainedMax > 0 && override > p.TrainedMax {
		p.Requested, override = override, p.TrainedMax
		say("--ctx %d is above the trained context: using %d (Ollama would serve no more, silently)", p.Requested, override)
		label = fmt.Sprintf("--ctx %d (lowered to %d)", p.Requested, override)
	}
	if override > 0 {
		p.NumCtx, p.Source = override, "--ctx"
		if p.KVBytesPerToken > 0 && p.WeightsBytes > 0 {
			need := kv.bytes(override)
			verdict := "fits"
			if need > p.VRAMBytes-p.WeightsBytes {
				verdict = "does NOT fit: part of the model will run on the CPU, much slower"
			}
			say("%s overrides the plan: its KV cache needs %s, which %s", label, human(need), verdict)
		} else {
			say("%s overrides the plan", label)
		}
	}
	if p.Experts != nil {
		p.Experts.place(p.NumCtx, kv, p.VRAMBytes, p.WeightsBytes, say)
	}
	return p
}

// Clamp says, for the user, that --ctx was lowered to the trained context;
// "" when it was not.
func (p Plan) Clamp() string {
	if p.Requested == 0 {
		return ""
	}
	return fmt.Sprintf("--ctx %d is above the model's trained context of %d tokens; using %d", p.Requested, p.TrainedMax, p.NumCtx)
}

// planWindows fills Candidates and chooses the largest that fits in free.
func (p *Plan) planWindows(kv kvCache, free int64, say func(string, ...any)) {
	steps := p.steps()
	for _, n := range steps {
		c := Candidate{NumCtx: n, KVBytes: kv.bytes(n)}
		c.Fits = c.KVBytes <= free
		p.Candidates = append(p.Candidates, c)
		mark := "fits"
		if !c.Fits {
			mark = "too big"
		}
		say("  %6d tokens: KV %s  %s", n, human(c.KVBytes), mark)
		if c.Fits {
			p.NumCtx = n
		}
	}
	p.Source = "planned"
	if p.NumCtx == 0 {
		p.NumCtx = steps[0]
		say("no window fits: using the smallest, %d; part of the model will run on the CPU", p.NumCtx)
		return
	}
	say("chosen: %d, the largest window that fits", p.NumCtx)
}

// largestFit is the largest window planWindows would choose in free bytes
// (0: none fits).
func (p *Plan) largestFit(kv kvCache, free int64) int {
	best := 0
	for _, n := range p.steps() {
		if kv.bytes(n) <= free {
			best = n
		}
	}
	return best
}

// steps are the windows considered: contextSteps up to the trained
// maximum, or the trained maximum alone when it is below them all.
func (p *Plan) steps() []int {
	if p.TrainedMax > 0 && p.TrainedMax < contextSteps[0] {
		return []int{p.TrainedMax}
	}
	var out []int
	for _, n := range contextSteps {
		if p.TrainedMax > 0 && n > p.TrainedMax {
			break
		}
		out = append(out, n)
	}
	return out
}

// weightsFootprint is the size on disk plus weightsOverheadPercent plus the
// compute buffers. Without a size on disk it is estimated from the
// parameter count and the quantization's bits per weight.
func weightsFootprint(info models.ModelInfo) (int64, string) {
	size, how := info.SizeBytes, fmt.Sprintf("%s on disk", human(info.SizeBytes))
	if size == 0 {
		if info.ParameterCount == 0 {
			return 0, "no size on disk and no parameter count"
		}
		bits := bitsPerWeight(info.Quantization)
		size = int64(float64(info.ParameterCount) * bits / 8)
		how = fmt.Sprintf("%s estimated (%d params × %.2f bits)", human(size), info.ParameterCount, bits)
	}
	total := size + size*weightsOverheadPercent/100 + computeBufferBytes
	return total, fmt.Sprintf("%s + %d%% overhead + %s compute buffers", how, weightsOverheadPercent, human(computeBufferBytes))
}

// bitsPerWeight is the effective storage of a quantization type over a
// whole GGUF file (embedding and output tensors are kept at higher
// precision, so Q4_K_M files average about 5.1 bits: qwen3:8b is 5.2 GB for
// 8.2B parameters). Unknown types count as Q4_K_M, Ollama's default.
func bitsPerWeight(quant string) float64 {
	switch strings.ToUpper(quant) {
	case "F32":
		return 32
	case "F16", "BF16":
		return 16
	case "Q8_0":
		return 8.5
	case "Q6_K":
		return 6.6
	case "Q5_K_M", "Q5_K_S", "Q5_0", "Q5_1":
		return 5.7
	case "Q4_0", "Q4_1", "Q4_K_S":
		return 4.7
	case "Q3_K_M", "Q3_K_L", "Q3_K_S":
		return 4.0
	case "Q2_K":
		return 3.4
	}
	return 5.1
}

func capTrained(n, trained int) int {
	if trained > 0 && trained < n {
		return trained
	}
	return n
}

// human prints a byte count in binary units.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// DetectVRAM asks nvidia-smi for the memory of the largest NVIDIA GPU. It
// reports ok=false, without an error, when there is no nvidia-smi or it
// fails: the caller then plans with --vram or DefaultVRAM.
func DetectVRAM(ctx context.Context) (int64, bool) {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--query-gpu=memory.total", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return 0, false
	}
	return parseNvidiaSMI(string(out))
}

// DetectRAM reads how much system RAM is available to a new program
// without swapping (MemAvailable in /proc/meminfo). It reports ok=false
// where there is no such file (not Linux): the caller then plans with
// --ram, or without knowing.
func DetectRAM() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return parseMeminfo(string(b))
}

// parseMeminfo reads MemAvailable, in kB, from /proc/meminfo's text.
func parseMeminfo(text string) (int64, bool) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil && kb > 0 {
				return kb << 10, true
			}
		}
	}
	return 0, false
}

// parseNvidiaSMI reads one MiB figure per GPU and returns the largest in
// bytes. Ollama can split a model over GPUs, but one GPU is the safe plan.
func parseNvidiaSMI(out string) (int64, bool) {
	var largest int64
	for line := range strings.Lines(out) {
		mib, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err == nil && mib > 0 {
			largest = max(largest, mib<<20)
		}
	}
	return largest, largest > 0
}
