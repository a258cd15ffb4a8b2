package config

import (
	"cmp"

	"github.com/ternhq/tern/models/ollama"
)

// ApplyEnv applies the environment over cfg, made from the files:
// TERN_MODEL names the model; OLLAMA_HOST (read as Ollama reads it) is
// the host when no file set one; the API key of an OpenAI-compatible
// server comes from TERN_API_KEY, else OPENAI_API_KEY, and from nowhere
// else.
func (cfg *Config) ApplyEnv(getenv func(string) string) {
	if v := getenv("TERN_MODEL"); v != "" {
		cfg.Model = v
	}
	if v := ollama.EnvHost(getenv); v != "" && cfg.Host == "" {
		cfg.Host = v
	}
	cfg.apiKey = cmp.Or(getenv("TERN_API_KEY"), getenv("OPENAI_API_KEY"))
}

// SetHost sets the host given by --host, which, unlike a host from a file
// or the environment, beats base_url.
func (cfg *Config) SetHost(host string) {
	cfg.Host, cfg.hostFlag = host, true
}

// APIKey is the key sent to an OpenAI-compatible server ("" for none).
func (cfg Config) APIKey() string { return cfg.apiKey }

// Notices say what of the project's file was ignored or lowered, and why;
// the user is told before anything runs.
func (cfg Config) Notices() []string { return cfg.notices }

// OpenAIAddr is the OpenAI-compatible server's address: --host when
// given, else base_url, else the host.
func (cfg Config) OpenAIAddr() string {
	if cfg.hostFlag {
		return cfg.Host
	}
	return cmp.Or(cfg.BaseURL, cfg.Host)
}

// UsesOpenAI reports whether cfg names an OpenAI-compatible server
// without asking any server: --backend openai, or base_url set and the
// backend not forced to Ollama.
func (cfg Config) UsesOpenAI() bool {
	return cfg.Backend == BackendOpenAI || cfg.Backend != BackendOllama && cfg.BaseURL != "" && !cfg.hostFlag
}

// Addr is the address to ask when the backend is auto: base_url, unless
// --host was given, else the host (fromHost). "" means none was given.
func (cfg Config) Addr() (addr string, fromHost bool) {
	if cfg.BaseURL != "" && !cfg.hostFlag {
		return cfg.BaseURL, false
	}
	return cfg.Host, true
}

// Escalation returns cfg for escalate_model: that model, with a window
// planned for it (--ctx is the session model's), on escalate_host when
// set, which is asked what server it is as --host is.
func (cfg Config) Escalation() Config {
	e := cfg
	e.Model, e.Ctx = cfg.EscalateModel, 0
	if cfg.EscalateHost != "" {
		e.Backend, e.BaseURL = BackendAuto, ""
		e.SetHost(cfg.EscalateHost)
	}
	return e
}

// WithOpenAI returns cfg naming the OpenAI-compatible server at addr, as
// a run resolved it, so that what is opened after (the code index's
// embeddings) talks to the same server.
func (cfg Config) WithOpenAI(addr string) Config {
	cfg.Backend, cfg.BaseURL, cfg.hostFlag = BackendOpenAI, addr, false
	return cfg
}
