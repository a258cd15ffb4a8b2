package ollama

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/ternhq/tern/models"
)

// A mixture of experts too big for the GPU still runs well when its routed
// experts stay in system RAM: only a few of them work on each token, so
// decoding reads little from RAM, while the attention weights, the shared
// experts and the KV cache stay on the GPU. llama.cpp does this with
// --n-cpu-moe N (the routed experts of layers 0..N-1 in RAM) or the
// equivalent -ot pattern. planExperts sizes the window from what must sit
// in VRAM, then gives what is left of the VRAM to the experts of the last
// layers; the rest go to RAM.
//
// Ollama v0.17 does not split a layer so: it offloads whole layers to the
// GPU, experts and attention together, as many as fit, and runs the others
// on the CPU (llm/server.go assignLayers; ollama/ollama#11772 asks for
// expert offload). Experts.OllamaGPULayers estimates how many layers that
// is.

// Bandwidths for the speed estimates, in bytes a second: sustained reads
// from dual-channel DDR4-3200 and DDR5-5600 laptop memory, and an 8 GB
// laptop GPU's memory (an RTX 4060 Laptop's 256 GB/s).
const (
	ramSlowBandwidth = 40e9
	ramFastBandwidth = 70e9
	gpuBandwidth     = 256e9
)

// ramMargin is the free RAM left to the system and the server beside the
// experts.
const ramMargin = 1 << 30

// Experts is how a plan lays out a mixture of experts.
type Experts struct {
	// Count routed experts in each of Layers layers, Used of them working
	// on each token, Shared shared experts working on every token.
	Count, Used, Shared, Layers int
	// Bytes are all the routed experts, PerLayer each layer's; Dense is
	// every other weight (attention, shared experts, router, embeddings),
	// all as in the file. Estimated is set when they come from the
	// architecture numbers rather than the tensor list.
	Bytes     int64
	PerLayer  []int64
	Dense     int64
	Estimated bool
	// AllOnGPU is set when the whole model fits next to the window: no
	// expert needs to leave the GPU.
	AllOnGPU bool
	// CPULayers is llama-server's --n-cpu-moe: the routed experts of
	// layers 0..CPULayers-1 stay in RAM, RAMBytes of them; the others are
	// on the GPU.
	CPULayers int
	RAMBytes  int64
	// RAMFree is the free RAM planned with (0: unknown); RAMFits says
	// whether the experts in RAM fit in it with a margin.
	RAMFree int64
	RAMFits bool
	// OllamaGPULayers is how many whole layers Ollama v0.17 would offload
	// with the window, by this arithmetic (Ollama decides by itself).
	OllamaGPULayers int
	// Path is the model file, for llama-server's -m ("" when unknown).
	Path string
	// NumCtx is the window placed for.
	NumCtx int
	// staging is the GPU buffer llama.cpp copies one expert tensor into
	// when it computes a long prompt on the GPU.
	staging int64
}

// Speed is a layout's decoding speed class, as a ceiling from memory
// bandwidth: the bytes each token reads from RAM and from VRAM.
type Speed struct {
	Class            string
	RAMRead, GPURead int64
	// Low and High are the ceilings in tokens a second with slow and fast
	// RAM (ramSlowBandwidth, ramFastBandwidth).
	Low, High float64
}

// expertSizes reads the expert weights of info: from the tensor list, or
// estimated from the architecture numbers (gate, up and down projections
// of ExpertFFLength × EmbeddingLength each, at the file's bits per weight).
// ok is false when neither says.
func expertSizes(info models.ModelInfo, total int64) (e Experts, ok bool) {
	e = Experts{Count: info.ExpertCount, Used: info.ExpertUsedCount, Shared: info.ExpertSharedCount,
		Layers: info.BlockCount, Path: info.GGUFPath}
	switch {
	case len(info.ExpertBytes) > 0:
		e.PerLayer = append([]int64(nil), info.ExpertBytes...)
	case info.ExpertFFLength > 0 && info.EmbeddingLength > 0 && info.BlockCount > 0:
		per := int64(float64(3*info.ExpertCount*info.ExpertFFLength*info.EmbeddingLength) * bitsPerWeight(info.Quantization) / 8)
		e.PerLayer = make([]int64, info.BlockCount)
		for i := range e.PerLayer {
			e.PerLayer[i] = per
		}
		e.Estimated = true
	default:
		return e, false
	}
	for _, b := range e.PerLayer {
		e.Bytes += b
	}
	e.Layers = max(e.Layers, len(e.PerLayer))
	if e.Bytes <= 0 || e.Bytes >= total {
		return e, false
	}
	e.Dense = total - e.Bytes
	largest := int64(0)
	for _, b := range e.PerLayer {
		largest = max(largest, b)
	}
	e.staging = largest / 3 // one of gate, up and down
	return e, true
}

// planExperts plans a mixture of experts: as a dense model when the whole
// of it fits next to the largest window, else with the routed experts
// leaving the GPU first. It reports whether it planned; false leaves the
// dense plan to the caller.
func (p *Plan) planExperts(info models.ModelInfo, kv kvCache, say func(string, ...any)) bool {
	if !info.MoE() {
		return false
	}
	total := cmp.Or(info.SizeBytes, info.TensorBytes)
	e, ok := expertSizes(info, total)
	if !ok {
		say("mixture of experts (%d experts, %d a token), but the server lists no expert sizes: planned as a dense model", info.ExpertCount, info.ExpertUsedCount)
		return false
	}
	how := "from the tensor list"
	if e.Estimated {
		how = fmt.Sprintf("estimated: %d layers × %d experts × 3 × %d × %d at %.1f bits", e.Layers, e.Count, info.ExpertFFLength, info.EmbeddingLength, bitsPerWeight(info.Quantization))
	}
	shared := ""
	if e.Shared > 0 {
		shared = fmt.Sprintf(" and %d shared", e.Shared)
	} else if info.SharedExpertBytes > 0 {
		shared = " and shared ones"
	}
	say("mixture of experts: %d experts a layer, %d working on each token%s; routed experts %s of %s (%s)",
		e.Count, e.Used, shared, human(e.Bytes), human(total), how)
	p.Experts = &e
	e.RAMFree = p.RAMBytes

	steps := p.steps()
	whole := p.VRAMBytes - p.WeightsBytes
	switch fit := p.largestFit(kv, whole); {
	case fit == steps[len(steps)-1]:
		e.AllOnGPU = true
		say("VRAM %s − weights %s = %s left for the KV cache: the whole model fits, experts included", human(p.VRAMBytes), human(p.WeightsBytes), human(whole))
		p.planWindows(kv, whole, say)
		return true
	case fit > 0:
		say("with every expert on the GPU the largest window would be %d tokens: the experts that do not fit next to a larger one go to RAM", fit)
	}
	p.WeightsBytes = e.Dense + e.Dense*weightsOverheadPercent/100 + computeBufferBytes + e.staging
	say("the GPU must hold the rest: %s + %d%% overhead + %s compute buffers + %s for an expert tensor copied in for long prompts = %s",
		human(e.Dense), weightsOverheadPercent, human(computeBufferBytes), human(e.staging), human(p.WeightsBytes))
	free := p.VRAMBytes - p.WeightsBytes
	say("VRAM %s − %s = %s left for the KV cache, then for experts", human(p.VRAMBytes), human(p.WeightsBytes), human(max(free, 0)))
	p.planWindows(kv, free, say)
	return true
}

// place puts the experts of the last layers on the GPU while they fit
// next to the window's KV cache in what vram leaves beside gpuFixed (the
// weights that stay on the GPU); --n-cpu-moe keeps the first layers' in
// RAM. It also estimates what Ollama would do instead.
func (e *Experts) place(numCtx int, kv kvCache, vram, gpuFixed int64, say func(string, ...any)) {
	e.NumCtx = numCtx
	// Ollama's whole layers: each with its share of the weights (and
	// overhead) and of the KV cache, next to the compute buffers.
	layer := ((e.Dense+e.Bytes)*(100+weightsOverheadPercent)/100 + kv.bytes(numCtx)) / int64(max(e.Layers, 1))
	e.OllamaGPULayers = min(e.Layers, int(max(vram-computeBufferBytes, 0)/max(layer, 1)))
	if e.AllOnGPU {
		e.CPULayers, e.RAMBytes, e.RAMFits, e.OllamaGPULayers = 0, 0, true, e.Layers
		return
	}
	left := vram - gpuFixed - kv.bytes(numCtx)
	e.CPULayers = len(e.PerLayer)
	for i := len(e.PerLayer) - 1; i >= 0; i-- {
		need := e.PerLayer[i] + e.PerLayer[i]*weightsOverheadPercent/100
		if need > left {
			break
		}
		left -= need
		e.CPULayers = i
	}
	e.RAMBytes = 0
	for _, b := range e.PerLayer[:e.CPULayers] {
		e.RAMBytes += b
	}
	onGPU := len(e.PerLayer) - e.CPULayers
	say("experts: the last %d layers' on the GPU (%s), the first %d layers' in RAM (%s): llama-server --n-cpu-moe %d",
		onGPU, human(e.Bytes-e.RAMBytes), e.CPULayers, human(e.RAMBytes), e.CPULayers)
	switch {
	case e.RAMFree <= 0:
		e.RAMFits = true // unknown: not held against the plan
		say("free RAM unknown: the %s of experts in RAM need that much free memory (set --ram)", human(e.RAMBytes))
	case e.RAMBytes+ramMargin <= e.RAMFree:
		e.RAMFits = true
		say("free RAM %s holds the experts' %s with %s to spare", human(e.RAMFree), human(e.RAMBytes), human(e.RAMFree-e.RAMBytes))
	default:
		say("free RAM %s does NOT hold the experts' %s and %s for the system: they would be read from disk for every token", human(e.RAMFree), human(e.RAMBytes), human(ramMargin))
	}
}

// Speed is the decoding speed class of llama-server's layout (experts in
// RAM) or, with ollama set, of Ollama's whole layers.
func (e Experts) Speed(ollama bool) Speed {
	active := func(experts int64) int64 {
		if e.Count == 0 {
			return 0
		}
		return experts * int64(e.Used) / int64(e.Count)
	}
	var s Speed
	switch {
	case e.AllOnGPU || (ollama && e.OllamaGPULayers >= e.Layers):
		s.Class = "all on the GPU"
		s.GPURead = e.Dense + active(e.Bytes)
	case ollama:
		s.Class = "whole layers on the CPU"
		cpu := int64(e.Layers - e.OllamaGPULayers)
		perToken := e.Dense + active(e.Bytes)
		s.RAMRead = perToken * cpu / int64(max(e.Layers, 1))
		s.GPURead = perToken - s.RAMRead
	case !e.RAMFits:
		s.Class = "experts read from disk"
		s.RAMRead = active(e.RAMBytes)
		s.GPURead = e.Dense + active(e.Bytes-e.RAMBytes)
		return s // a disk's speed, not RAM's: no ceiling worth giving
	default:
		s.Class = "experts in RAM"
		s.RAMRead = active(e.RAMBytes)
		s.GPURead = e.Dense + active(e.Bytes-e.RAMBytes)
	}
	gpu := float64(s.GPURead) / gpuBandwidth
	s.Low = 1 / (gpu + float64(s.RAMRead)/ramSlowBandwidth)
	s.High = 1 / (gpu + float64(s.RAMRead)/ramFastBandwidth)
	return s
}

// String says the class and its ceiling in words, for tern doctor.
func (s Speed) String() string {
	switch {
	case s.Class == "experts read from disk":
		return fmt.Sprintf("%s: each token would read %s of experts from disk: unusably slow", s.Class, human(s.RAMRead))
	case s.Low > maxCeiling:
		// A tiny model: nothing worth bounding.
		return fmt.Sprintf("%s: each token reads %s from RAM and %s from VRAM", s.Class, human(s.RAMRead), human(s.GPURead))
	case s.RAMRead == 0:
		return fmt.Sprintf("%s: each token reads %s at GPU speed, at most ~%.0f tokens/s", s.Class, human(s.GPURead), s.High)
	}
	ceiling := fmt.Sprintf("~%.0f", s.Low)
	if s.High <= maxCeiling {
		ceiling += fmt.Sprintf("–%.0f", s.High)
	}
	return fmt.Sprintf("%s: each token reads %s from RAM and %s from VRAM: at most %s tokens/s (DDR4–DDR5); real runs reach roughly a quarter to a half of it",
		s.Class, human(s.RAMRead), human(s.GPURead), ceiling)
}

// maxCeiling is the highest speed ceiling worth telling, in tokens a
// second: above it (a tiny model's) the bandwidth bounds nothing a user
// would notice.
const maxCeiling = 500

// CPUMoEPattern is the -ot (--override-tensor) pattern that keeps the
// routed experts of layers 0..n-1 in RAM, as --n-cpu-moe n does, for
// llama-server builds without that flag: "" for n of 0.
func CPUMoEPattern(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(`blk\.(%s)\.ffn_(up|down|gate)_(ch|)exps=CPU`, layerRange(n))
}

// layerRange is a regular expression alternation matching the layer
// numbers 0..n-1: "[0-9]|[1-2][0-9]|3[0-4]" for 35.
func layerRange(n int) string {
	switch {
	case n <= 10:
		return digitRange(0, n-1)
	case n > 100:
		nums := make([]string, n)
		for i := range nums {
			nums[i] = fmt.Sprint(i)
		}
		return strings.Join(nums, "|")
	}
	parts := []string{"[0-9]"}
	tens, rest := n/10, n%10
	if tens > 1 {
		parts = append(parts, digitRange(1, tens-1)+"[0-9]")
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprint(tens)+digitRange(0, rest-1))
	}
	return strings.Join(parts, "|")
}

// digitRange is "[a-b]", or the digit itself when a == b.
func digitRange(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("[%d-%d]", a, b)
}
