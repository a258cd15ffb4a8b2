package ollama

import (
	"fmt"

	"github.com/ternhq/tern/models"
)

// Not every layer of every model caches every token. A hybrid such as the
// qwen3.5 family gives one layer in four full attention and keeps a
// fixed-size recurrent state in the others; gemma's sliding-window layers
// keep only the last few hundred or thousand tokens. kvModel reads what
// /api/show says of the layers and sizes the cache accordingly; where it
// must guess, it says what it assumed.

// recurrentElementBytes: Ollama keeps recurrent state in f32.
const recurrentElementBytes = 4

// kvCache is how a model's KV cache grows with the window.
type kvCache struct {
	// perToken is the bytes one token of context costs in the layers that
	// cache every token.
	perToken int64
	// perWindowToken is the same for the sliding-window layers, which stop
	// growing at window tokens.
	perWindowToken int64
	window         int
	// fixed is the recurrent state, the same for any window.
	fixed int64
	// how explains the figures, one line each; unknown says why there are
	// none.
	how     []string
	unknown string
}

// bytes is the cache for a window of n tokens.
func (k kvCache) bytes(n int) int64 {
	return k.perToken*int64(n) + k.perWindowToken*int64(min(n, k.window)) + k.fixed
}

// kvModel sizes the KV cache of info: 2 (K and V) × KV heads × head size ×
// 2 bytes (f16) per token in each attention layer, summed over the layers
// as they really are.
func kvModel(info models.ModelInfo) kvCache {
	var k kvCache
	headK, headV := info.KeyLength, info.ValueLength
	headHow := "key_length"
	if headK == 0 && info.HeadCount > 0 {
		headK = info.EmbeddingLength / info.HeadCount
		headHow = "embedding_length/head_count"
	}
	if headV == 0 {
		headV = headK
	}
	layers := info.BlockCount
	switch {
	case layers == 0:
		k.unknown = "no block_count"
		return k
	case info.HeadCountKV == 0 && len(info.HeadCountKVPerLayer) == 0:
		k.unknown = "no attention.head_count_kv"
		return k
	case headK == 0:
		k.unknown = "no attention.key_length, embedding_length or head_count"
		return k
	}
	perHead := int64(headK+headV) * kvElementBytes
	headDims := fmt.Sprintf("%d head dim (%s)", headK, headHow)
	if headK != headV {
		headDims = fmt.Sprintf("(%d key + %d value dims)", headK, headV)
	}

	// Which layers attend, with how many KV heads.
	heads := make([]int, layers)
	source := ""
	switch {
	case len(info.HeadCountKVPerLayer) == layers:
		copy(heads, info.HeadCountKVPerLayer)
		source = "per-layer attention.head_count_kv"
	case info.FullAttentionInterval > 0:
		for i := range heads {
			if (i+1)%info.FullAttentionInterval == 0 {
				heads[i] = info.HeadCountKV
			}
		}
		source = fmt.Sprintf("full_attention_interval %d: one layer in %d has attention", info.FullAttentionInterval, info.FullAttentionInterval)
	default:
		for i := range heads {
			heads[i] = info.HeadCountKV
		}
	}

	// Which attention layers keep only a sliding window.
	sliding := make([]bool, layers)
	if w := info.SlidingWindow; w > 0 {
		k.window = w
		switch {
		case len(info.SlidingWindowPattern) == layers:
			copy(sliding, info.SlidingWindowPattern)
			k.how = append(k.how, fmt.Sprintf("sliding window %d tokens, layers from attention.sliding_window_pattern", w))
		case info.Architecture == "gemma3":
			for i := range sliding {
				sliding[i] = (i+1)%6 != 0 // five local layers, then one global
			}
			k.how = append(k.how, fmt.Sprintf("sliding window %d tokens: assumed in 5 of every 6 layers, as gemma3 has", w))
		case info.Architecture == "gemma2" || info.Architecture == "gptoss" || info.Architecture == "gpt-oss":
			for i := range sliding {
				sliding[i] = i%2 == 0 // local and global layers alternate
			}
			k.how = append(k.how, fmt.Sprintf("sliding window %d tokens: assumed in every other layer, as %s has", w, info.Architecture))
		default:
			k.how = append(k.how, fmt.Sprintf("sliding window %d tokens, but which layers use it is unknown: all counted as full attention", w))
		}
	}

	var full, window, recurrent, fullHeads, windowHeads int
	for i, h := range heads {
		switch {
		case h == 0:
			recurrent++
		case sliding[i]:
			window++
			windowHeads += h
			k.perWindowToken += int64(h) * perHead
		default:
			full++
			fullHeads += h
			k.perToken += int64(h) * perHead
		}
	}
	if full+window == 0 {
		k.unknown = "no layer with attention"
		return k
	}
	uniform := func(n, h int) string {
		if n > 0 && h%n == 0 {
			return fmt.Sprintf("%d KV heads", h/n)
		}
		return fmt.Sprintf("%d KV heads in all", h)
	}
	line := fmt.Sprintf("2 (K,V) × %d of %d layers × %s × %s × %d bytes (f16)", full, layers, uniform(full, fullHeads), headDims, kvElementBytes)
	if full == layers {
		line = fmt.Sprintf("2 (K,V) × %d layers × %s × %s × %d bytes (f16)", layers, uniform(full, fullHeads), headDims, kvElementBytes)
	}
	if source != "" {
		line += "; " + source
	}
	k.how = append([]string{line}, k.how...)
	if window > 0 {
		k.how = append(k.how, fmt.Sprintf("%d sliding-window layers: %s a token, for at most %d tokens", window, human(k.perWindowToken), k.window))
	}
	if recurrent > 0 {
		c, in, st, g := int64(info.SSMConvKernel), int64(info.SSMInnerSize), int64(info.SSMStateSize), int64(info.SSMGroupCount)
		if st > 0 && in > 0 {
			per := st * in
			if c > 0 {
				per += (c - 1) * (in + 2*g*st)
			}
			k.fixed = int64(recurrent) * per * recurrentElementBytes
			k.how = append(k.how, fmt.Sprintf("%d recurrent layers keep a fixed state: %s whatever the window", recurrent, human(k.fixed)))
		} else {
			k.how = append(k.how, fmt.Sprintf("%d recurrent layers: state size unknown (no ssm.* numbers), not counted", recurrent))
		}
	}
	return k
}
