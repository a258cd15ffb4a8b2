package config

import (
	"fmt"
	"time"

	"github.com/ternhq/tern/models/ollama"
)

// Stream is the [stream] table: the limits that keep a stalled or
// runaway server from hanging tern.
type Stream struct {
	// How long the server may take to answer a question about itself
	// (its version, its models, a model's details): the first contact of
	// `tern ask` and the TUI, and each check of `tern doctor`. A working
	// server answers at once; one that takes the connection and answers
	// nothing is cut off after this, with its address (default `"10s"`).
	ContactTimeout Duration `toml:"contact_timeout"`
	// How long the server may take to send the first byte of a reply,
	// loading the model and reading the prompt included (default `"5m"`,
	// `"10m"` for `--backend openai`).
	HeaderTimeout Duration `toml:"header_timeout"`
	// The longest silence within a reply (default `"3m"`, `"10m"` for
	// `--backend openai`).
	IdleTimeout Duration `toml:"idle_timeout"`
	// Caps one reply's text in bytes (default `1048576`); a reply is also
	// stopped at twice its `num_predict`.
	MaxReplyBytes int `toml:"max_reply_bytes"`
}

// Limits checks the table and converts it; zero values take the defaults.
func (s Stream) Limits() (ollama.Limits, error) {
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"stream.header_timeout", s.HeaderTimeout.Duration}, {"stream.idle_timeout", s.IdleTimeout.Duration}, {"stream.contact_timeout", s.ContactTimeout.Duration}} {
		if d.v != 0 && (d.v < time.Second || d.v > 24*time.Hour) {
			return ollama.Limits{}, fmt.Errorf("config: %s must be between 1s and 24h, not %s", d.key, d.v)
		}
	}
	if s.MaxReplyBytes != 0 && (s.MaxReplyBytes < 4<<10 || s.MaxReplyBytes > 64<<20) {
		return ollama.Limits{}, fmt.Errorf("config: stream.max_reply_bytes must be between 4096 and 67108864, not %d", s.MaxReplyBytes)
	}
	return ollama.Limits{HeaderTimeout: s.HeaderTimeout.Duration, IdleTimeout: s.IdleTimeout.Duration, MaxReplyBytes: s.MaxReplyBytes,
		ContactTimeout: s.ContactTimeout.Duration}, nil
}
