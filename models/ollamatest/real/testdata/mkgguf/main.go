// mkgguf writes tiny random-weight GGUF models with Ollama's own GGUF writer
// (github.com/ollama/ollama/fs/ggml.WriteGGUF), for tests that need a real
// Ollama server but no real model weights.
//
//	go run . -arch llama  -o tiny-llama.gguf           # llama.cpp runner in Ollama
//	go run . -arch qwen3  -o tiny-qwen3.gguf           # Ollama's Go engine
//	go run . -arch qwen3  -pooling 3 -o tiny-embed.gguf # qwen3_embed: /api/embed, "embedding" capability
//	go run . -arch llama  -loop Ġhello -o tiny-loop.gguf # always predicts " hello"
//	go run . -arch qwen3  -script -o tiny-script.gguf   # calls read_file on NOTES.md, then answers
//	go run . -arch qwen35 -layers 8 -set full_attention_interval=4 -o hybrid.gguf # metadata for /api/show
//	go run . -arch llama  -omit blk.0.ffn_up.weight -o broken.gguf # a runner that fails to load
//	go run . -arch qwen3moe -experts 8 -experts-used 2 -shexp -o moe.gguf # a mixture of experts
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/x448/float16"
)

const (
	hidden  = 64  // embedding_length
	heads   = 4   // attention.head_count
	kvHeads = 2   // attention.head_count_kv
	headDim = 16  // hidden / heads
	ffn     = 128 // feed_forward_length
)

// GPT-2 byte-to-unicode table: every byte has a token, so any text encodes.
func byteTokens() []string {
	var bs []int
	for b := '!'; b <= '~'; b++ {
		bs = append(bs, int(b))
	}
	for b := 0xA1; b <= 0xAC; b++ {
		bs = append(bs, b)
	}
	for b := 0xAE; b <= 0xFF; b++ {
		bs = append(bs, b)
	}
	cs := append([]int(nil), bs...)
	n := 0
	for b := 0; b < 256; b++ {
		found := false
		for _, x := range bs {
			if x == b {
				found = true
				break
			}
		}
		if !found {
			bs = append(bs, b)
			cs = append(cs, 256+n)
			n++
		}
	}
	m := map[int]string{}
	for i, b := range bs {
		m[b] = string(rune(cs[i]))
	}
	out := make([]string, 256)
	for b := 0; b < 256; b++ {
		out[b] = m[b]
	}
	return out
}

// A few merged tokens so the vocabulary has words; every merge's parts and
// result are in the vocabulary.
var words = strings.Fields(`the he in an er on re at en or es is it ou ing and to of ed al ar le st
read file hello world func main return package import string NOTES md go tern`)

var specials = []string{
	"<|endoftext|>", "<|im_start|>", "<|im_end|>",
	"<tool_call>", "</tool_call>", "<think>", "</think>",
}

func main() {
	arch := flag.String("arch", "llama", "llama, qwen3 or qwen3moe (qwen35 and gemma3: metadata for /api/show, not loadable)")
	pool := flag.Uint("pooling", 0, "pooling_type (qwen3 only): 0 none, 1 mean, 2 cls, 3 last")
	ctxLen := flag.Uint("ctx", 4096, "context_length (trained)")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "tiny.gguf", "output file")
	loop := flag.String("loop", "", "make a model that always emits this token (e.g. Ġhello): a looping model")
	script := flag.Bool("script", false, "make a scripted model: after a prompt ending in a newline it calls read_file on -path; after one ending in <|answer|> it answers -answer")
	scriptPath := flag.String("path", "NOTES.md", "the file a scripted model reads")
	scriptCall := flag.String("call", "", "the text between <tool_call> and </tool_call> (default: a read_file call on -path)")
	scriptAnswer := flag.String("answer", "The release codename is zebra-quartz-17.", "what a scripted model answers after the tool result")
	layerCount := flag.Int("layers", 2, "block_count")
	experts := flag.Int("experts", 0, "expert_count: routed experts a layer (qwen3moe), in blk.N.ffn_{gate,up,down}_exps")
	expertsUsed := flag.Int("experts-used", 2, "expert_used_count: experts working on each token")
	expertFFN := flag.Int("expert-ffn", 32, "expert_feed_forward_length: one expert's width")
	shexp := flag.Bool("shexp", false, "add a shared expert to each layer (blk.N.ffn_{gate,up,down}_shexp)")
	var sets, omits multiFlag
	flag.Var(&sets, "set", "KEY=JSON: set a metadata key, named as the writer names it (no architecture prefix: full_attention_interval=4, attention.head_count_kv=[0,2]); repeatable")
	flag.Var(&omits, "omit", "leave this tensor out (a model whose runner fails to load it); repeatable")
	flag.Parse()
	layers := *layerCount

	tokens := byteTokens()
	types := make([]int32, 0, 512)
	for range tokens {
		types = append(types, 1) // normal
	}
	have := map[string]bool{}
	for _, t := range tokens {
		have[t] = true
	}
	var merges []string
	add := func(t string) {
		if !have[t] {
			have[t] = true
			tokens = append(tokens, t)
			types = append(types, 1)
		}
	}
	// Build each word left to right from byte tokens ("Ġ" is the space byte).
	for _, w := range words {
		for _, v := range []string{w, "Ġ" + w} {
			rs := []rune(v)
			cur := string(rs[0])
			for _, r := range rs[1:] {
				m := cur + " " + string(r)
				merges = append(merges, m)
				cur += string(r)
				add(cur)
			}
		}
	}
	// Deduplicate merges, keeping the first (highest-priority) one.
	seen := map[string]bool{}
	uniq := merges[:0]
	for _, m := range merges {
		if !seen[m] {
			seen[m] = true
			uniq = append(uniq, m)
		}
	}
	merges = uniq
	first := len(tokens)
	for _, s := range specials {
		tokens = append(tokens, s)
		types = append(types, 3) // control
	}
	eos := uint32(first + 2) // <|im_end|>
	// A scripted model is a bigram model: the next token depends only on the
	// current one, so each step of the script is one token of its own.
	next := map[int]int{} // token id -> the id it predicts
	if *script {
		enc := byteTokens()
		b2u := func(text string) string {
			var sb strings.Builder
			for _, c := range []byte(text) {
				sb.WriteString(enc[c])
			}
			return sb.String()
		}
		id := func(t string) int {
			for i, v := range tokens {
				if v == t {
					return i
				}
			}
			tokens = append(tokens, t)
			types = append(types, 1)
			return len(tokens) - 1
		}
		answerMark := len(tokens)
		tokens = append(tokens, "<|answer|>")
		types = append(types, 3) // control: the template ends a prompt after a tool result with it
		callText := fmt.Sprintf("\n{\"name\": \"read_file\", \"arguments\": {\"path\": %q}}\n", *scriptPath)
		if *scriptCall != "" {
			callText = *scriptCall
		}
		call := id(b2u(callText))
		answer := id(b2u(*scriptAnswer))
		nl, open, closeTag := id(b2u("\n")), id("<tool_call>"), id("</tool_call>")
		next[nl] = open
		next[open] = call
		next[call] = closeTag
		next[closeTag] = int(eos)
		next[answerMark] = answer
		next[answer] = int(eos)
	}
	vocab := uint64(len(tokens))

	kv := ggml.KV{
		"general.architecture":             *arch,
		"general.name":                     "tiny-" + *arch,
		"general.file_type":                uint32(1), // MOSTLY_F16 (0, F32, reads as "unknown" in Ollama)
		"general.parameter_count":          uint64(0), // filled below
		"context_length":                   uint32(*ctxLen),
		"embedding_length":                 uint32(hidden),
		"block_count":                      uint32(layers),
		"feed_forward_length":              uint32(ffn),
		"attention.head_count":             uint32(heads),
		"attention.head_count_kv":          uint32(kvHeads),
		"attention.layer_norm_rms_epsilon": float32(1e-6),
		"rope.freq_base":                   float32(10000),
		"tokenizer.ggml.model":             "gpt2",
		"tokenizer.ggml.tokens":            tokens,
		"tokenizer.ggml.token_type":        types,
		"tokenizer.ggml.merges":            merges,
		"tokenizer.ggml.bos_token_id":      uint32(first), // <|endoftext|>
		"tokenizer.ggml.eos_token_id":      eos,
		"tokenizer.ggml.padding_token_id":  uint32(first),
		"tokenizer.ggml.add_bos_token":     false,
		"tokenizer.ggml.add_eos_token":     false,
	}
	switch *arch {
	case "llama":
		kv["tokenizer.ggml.pre"] = "default"
		kv["rope.dimension_count"] = uint32(headDim)
		kv["vocab_size"] = uint32(vocab)
	case "qwen3", "qwen3moe", "qwen35", "gemma3": // the last two for /api/show only: their tensors are llama's
		kv["tokenizer.ggml.pre"] = "qwen2"
		kv["attention.key_length"] = uint32(headDim)
		kv["attention.value_length"] = uint32(headDim)
		if *pool > 0 {
			kv["pooling_type"] = uint32(*pool)
		}
	default:
		log.Fatalf("unknown arch %q", *arch)
	}
	if (*experts > 0) != strings.HasSuffix(*arch, "moe") {
		log.Fatalf("-experts goes with a mixture-of-experts architecture (qwen3moe), not %q", *arch)
	}
	if *experts > 0 {
		kv["expert_count"] = uint32(*experts)
		kv["expert_used_count"] = uint32(*expertsUsed)
		kv["expert_feed_forward_length"] = uint32(*expertFFN)
	}

	rng := rand.New(rand.NewPCG(*seed, 0x7e57))
	var ts []*ggml.Tensor
	var params uint64
	loopID := -1
	if *loop != "" {
		for i, t := range tokens {
			if t == *loop {
				loopID = i
			}
		}
		if loopID < 0 {
			log.Fatalf("token %q not in the vocabulary", *loop)
		}
	}
	// fill returns the value of element i of tensor name: a looping model has
	// equal token embeddings, silent attention and MLP outputs, and an output
	// row that favours one token, so every position predicts that token.
	// Script sources get one-hot embeddings (dimension k for the k-th source);
	// the output row of each target is large on its sources' dimensions.
	srcDim := map[int]uint64{}
	for _, src := range slices.Sorted(maps.Keys(next)) { // sorted: the same file every run
		srcDim[src] = uint64(len(srcDim))
	}
	fill := func(name string, i, n uint64) (float32, bool) {
		if len(next) > 0 {
			row, col := int(i/hidden), i%hidden
			switch {
			case name == "token_embd.weight":
				if k, ok := srcDim[row]; ok {
					if col == k {
						return 1, true
					}
					return 0, true
				}
			case strings.HasSuffix(name, "attn_output.weight"), strings.Contains(name, ".ffn_down"):
				return 0, true
			case name == "output.weight":
				for src, dst := range next {
					if dst == row && col == srcDim[src] {
						return 10, true
					}
				}
			}
			return 0, false
		}
		if loopID < 0 {
			return 0, false
		}
		switch {
		case name == "token_embd.weight":
			return 1, true
		case strings.HasSuffix(name, "attn_output.weight"), strings.Contains(name, ".ffn_down"):
			return 0, true
		case name == "output.weight" && i/hidden == uint64(loopID):
			return 1, true
		}
		return 0, false
	}
	tensor := func(name string, norm bool, shape ...uint64) {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		params += n
		// Norm weights are F32 ones (kind 0), matrices F16 (kind 1) random
		// normal, as in a real F16 model file.
		var buf []byte
		kind := uint32(0)
		if norm {
			buf = make([]byte, 4*n)
			for i := range n {
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(1))
			}
		} else {
			kind = 1
			buf = make([]byte, 2*n)
			for i := range n {
				v := float32(rng.NormFloat64() * 0.5)
				if f, ok := fill(name, i, n); ok {
					v = f
				}
				binary.LittleEndian.PutUint16(buf[2*i:], float16.Fromfloat32(v).Bits())
			}
		}
		ts = append(ts, &ggml.Tensor{Name: name, Kind: kind, Shape: shape, WriterTo: bytes.NewReader(buf)})
	}
	tensor("token_embd.weight", false, hidden, vocab)
	tensor("output_norm.weight", true, hidden)
	tensor("output.weight", false, hidden, vocab)
	for i := range layers {
		p := fmt.Sprintf("blk.%d.", i)
		tensor(p+"attn_norm.weight", true, hidden)
		tensor(p+"attn_q.weight", false, hidden, heads*headDim)
		tensor(p+"attn_k.weight", false, hidden, kvHeads*headDim)
		tensor(p+"attn_v.weight", false, hidden, kvHeads*headDim)
		tensor(p+"attn_output.weight", false, heads*headDim, hidden)
		if *arch != "llama" {
			tensor(p+"attn_q_norm.weight", true, headDim)
			tensor(p+"attn_k_norm.weight", true, headDim)
		}
		tensor(p+"ffn_norm.weight", true, hidden)
		if *experts == 0 {
			tensor(p+"ffn_gate.weight", false, hidden, ffn)
			tensor(p+"ffn_up.weight", false, hidden, ffn)
			tensor(p+"ffn_down.weight", false, ffn, hidden)
			continue
		}
		// The router, then the routed experts stacked on a third axis.
		e, eff := uint64(*experts), uint64(*expertFFN)
		tensor(p+"ffn_gate_inp.weight", false, hidden, e)
		tensor(p+"ffn_gate_exps.weight", false, hidden, eff, e)
		tensor(p+"ffn_up_exps.weight", false, hidden, eff, e)
		tensor(p+"ffn_down_exps.weight", false, eff, hidden, e)
		if *shexp {
			tensor(p+"ffn_gate_inp_shexp.weight", true, hidden)
			tensor(p+"ffn_gate_shexp.weight", false, hidden, eff)
			tensor(p+"ffn_up_shexp.weight", false, hidden, eff)
			tensor(p+"ffn_down_shexp.weight", false, eff, hidden)
		}
	}
	kv["general.parameter_count"] = params
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			log.Fatalf("-set %q: want KEY=JSON", s)
		}
		val, err := ggufValue(v)
		if err != nil {
			log.Fatalf("-set %q: %v", s, err)
		}
		kv[k] = val
	}
	if len(omits) > 0 {
		ts = slices.DeleteFunc(ts, func(t *ggml.Tensor) bool { return slices.Contains(omits, t.Name) })
	}

	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := ggml.WriteGGUF(f, kv, ts); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: arch %s, vocab %d, %d merges, %d params, eos %d\n", *out, *arch, vocab, len(merges), params, eos)
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// ggufValue turns a JSON value into the type the GGUF writer stores:
// integers as uint32, other numbers as float32, strings, booleans, and
// arrays of one of those.
func ggufValue(s string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && x >= 0 {
			return uint32(x), nil
		}
		return float32(x), nil
	case string, bool:
		return x, nil
	case []any:
		if len(x) == 0 {
			return nil, fmt.Errorf("empty array")
		}
		switch x[0].(type) {
		case float64:
			out := make([]uint32, len(x))
			for i, e := range x {
				f, _ := e.(float64)
				out[i] = uint32(f)
			}
			return out, nil
		case bool:
			out := make([]bool, len(x))
			for i, e := range x {
				out[i], _ = e.(bool)
			}
			return out, nil
		case string:
			out := make([]string, len(x))
			for i, e := range x {
				out[i], _ = e.(string)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("unsupported value %s", s)
}
