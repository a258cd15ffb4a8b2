package config

import (
	"fmt"
	"time"

	"github.com/ternhq/tern/models/ollama"
)

// Stream is the [stream] table: the limits that keep a stalled or
// runaway Ollama from hanging tern.
type Stream struct {
	// HeaderTimeout: how long Ollama may take to start answering (it loads
	// the model and reads the prompt first).
	HeaderTimeout Duration `toml:"header_timeout"`
	// IdleTimeout: the longest silence within a reply.
	IdleTimeout Duration `toml:"idle_timeout"`
	// MaxReplyBytes caps one reply's text.
	MaxReplyBytes int `toml:"max_reply_bytes"`
}

// Limits checks the table and converts it; zero values take the defaults.
func (s Stream) Limits() (ollama.Limits, error) {
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"stream.header_timeout", s.HeaderTimeout.Duration}, {"stream.idle_timeout", s.IdleTimeout.Duration}} {
		if d.v != 0 && (d.v < time.Second || d.v > 24*time.Hour) {
			return ollama.Limits{}, fmt.Errorf("config: %s must be between 1s and 24h, not %s", d.key, d.v)
		}
	}
	if s.MaxReplyBytes != 0 && (s.MaxReplyBytes < 4<<10 || s.MaxReplyBytes > 64<<20) {
		return ollama.Limits{}, fmt.Errorf("config: stream.max_reply_bytes must be between 4096 and 67108864, not %d", s.MaxReplyBytes)
	}
	return ollama.Limits{HeaderTimeout: s.HeaderTimeout.Duration, IdleTimeout: s.IdleTimeout.Duration, MaxReplyBytes: s.MaxReplyBytes}, nil
}
