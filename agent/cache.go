package agent

import (
	"encoding/binary"
	"hash/fnv"
	"time"

	"github.com/ternhq/tern/models"
)

// This file tells how much of each request's prompt the server's prompt
// cache held. llama-server and some OpenAI-compatible servers say so;
// Ollama does not, and there it is what tern can know: the server keeps
// the KV cache of the last prompt and reuses it for a new prompt only as
// far as the two are identical from their start (the reason tern keeps
// its prefix byte-stable). So the share reused is the share of the
// prompt, by bytes, in the leading parts (the system prompt with the
// tools, then each message) that match the previous request to the same model
// and window; nothing when the model had to be loaded for the request.

// loadedAfresh is the load time from which a request counts as having
// loaded the model, with an empty cache (as escalate.go reads it).
const loadedAfresh = time.Second / 10

// promptPrint is what a request's prompt was made of: a hash and a size
// for each of its parts.
type promptPrint struct {
	model  string
	numCtx int
	hashes []uint64
	sizes  []int
}

// printOf fingerprints req's prompt.
func printOf(req models.Request) promptPrint {
	p := promptPrint{model: req.Model, numCtx: req.Options.NumCtx}
	add := func(parts ...[]byte) {
		h := fnv.New64a()
		n := 0
		for _, b := range parts {
			var l [8]byte
			binary.LittleEndian.PutUint64(l[:], uint64(len(b)))
			h.Write(l[:])
			h.Write(b)
			n += len(b)
		}
		p.hashes, p.sizes = append(p.hashes, h.Sum64()), append(p.sizes, n)
	}
	// The system prompt and the tools come first, in the server's
	// template: a change in either changes all that follows.
	msgs := req.Messages
	var head [][]byte
	for len(msgs) > 0 && msgs[0].Role == models.RoleSystem {
		head = append(head, []byte(msgs[0].Content))
		msgs = msgs[1:]
	}
	for _, s := range req.Tools {
		head = append(head, s.WireJSON())
	}
	add(append(head, req.Format)...)
	for _, m := range msgs {
		parts := [][]byte{[]byte(m.Role), []byte(m.Content), []byte(m.Thinking), []byte(m.ToolName), []byte(m.ToolCallID)}
		for _, c := range m.ToolCalls {
			parts = append(parts, []byte(c.Name), c.Arguments)
		}
		add(parts...)
	}
	return p
}

// reused is the share of next, by bytes, that its leading parts identical
// to prev's make: what a server that kept prev's cache can reuse.
func (prev promptPrint) reused(next promptPrint) float64 {
	if prev.model != next.model || prev.numCtx != next.numCtx {
		return 0
	}
	same, total := 0, 0
	match := true
	for i, h := range next.hashes {
		match = match && i < len(prev.hashes) && prev.hashes[i] == h
		if match {
			same += next.sizes[i]
		}
		total += next.sizes[i]
	}
	if total == 0 {
		return 0
	}
	return float64(same) / float64(total)
}

// cacheUse fills in how much of the prompt of req, just answered with
// metrics, the server's cache held: its own count, or tern's estimate
// from the request before (see above).
func (a *Agent) cacheUse(req models.Request, m models.Metrics, u *Usage) {
	print := printOf(req)
	share := a.lastPrint.reused(print)
	a.lastPrint = print
	if m.CacheReported {
		u.CachedTokens = m.CachedTokens
		return
	}
	u.CacheEstimated = true
	if m.LoadDuration >= loadedAfresh {
		return // the model was loaded for it: nothing was cached
	}
	u.CachedTokens = int(share * float64(max(u.PromptTokens, 0)))
}
