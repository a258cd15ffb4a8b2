package config

import (
	"testing"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestApplyEnv: what each variable sets, and what a file's value keeps.
func TestApplyEnv(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name             string
		file             Config
		env              map[string]string
		model, host, key string
	}{
		{name: "nothing set"},
		{name: "TERN_MODEL beats the file", file: Config{Model: "from-file"}, env: map[string]string{"TERN_MODEL": "from-env"}, model: "from-env"},
		{name: "no TERN_MODEL keeps the file's", file: Config{Model: "from-file"}, model: "from-file"},
		{name: "OLLAMA_HOST read as Ollama reads it", env: map[string]string{"OLLAMA_HOST": `"h:9"`}, host: "h:9"},
		{name: "a file's host beats OLLAMA_HOST", file: Config{Host: "file:1"}, env: map[string]string{"OLLAMA_HOST": "h:9"}, host: "file:1"},
		{name: "TERN_API_KEY first", env: map[string]string{"TERN_API_KEY": "t", "OPENAI_API_KEY": "o"}, key: "t"},
		{name: "else OPENAI_API_KEY", env: map[string]string{"OPENAI_API_KEY": "o"}, key: "o"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.file
			cfg.ApplyEnv(env(tt.env))
			if cfg.Model != tt.model || cfg.Host != tt.host || cfg.APIKey() != tt.key {
				t.Errorf("model %q, host %q, key %q; want %q, %q, %q", cfg.Model, cfg.Host, cfg.APIKey(), tt.model, tt.host, tt.key)
			}
		})
	}
}

// TestWhichServer: the address asked and whether the config names an
// OpenAI-compatible server, from base_url, a host from a file or the
// environment, and --host (which alone beats base_url).
func TestWhichServer(t *testing.T) {
	t.Parallel()
	const base, host = "http://127.0.0.1:8080", "h:11434"
	for _, tt := range []struct {
		name       string
		cfg        func() Config
		addr       string
		fromHost   bool
		openaiAddr string
		usesOpenAI bool
	}{
		{name: "nothing", cfg: func() Config { return Default() }, fromHost: true},
		{name: "host", cfg: func() Config { c := Default(); c.Host = host; return c }, addr: host, fromHost: true, openaiAddr: host},
		{name: "base_url", cfg: func() Config { c := Default(); c.BaseURL = base; return c }, addr: base, openaiAddr: base, usesOpenAI: true},
		{name: "base_url beats a file's host", cfg: func() Config { c := Default(); c.Host, c.BaseURL = host, base; return c },
			addr: base, openaiAddr: base, usesOpenAI: true},
		{name: "--host beats base_url", cfg: func() Config { c := Default(); c.BaseURL = base; c.SetHost(host); return c },
			addr: host, fromHost: true, openaiAddr: host},
		{name: "backend ollama", cfg: func() Config { c := Default(); c.Backend, c.BaseURL = BackendOllama, base; return c },
			addr: base, openaiAddr: base},
		{name: "backend openai", cfg: func() Config { c := Default(); c.Backend, c.Host = BackendOpenAI, host; return c },
			addr: host, fromHost: true, openaiAddr: host, usesOpenAI: true},
		{name: "resolved to a server", cfg: func() Config { c := Default(); c.SetHost(host); return c.WithOpenAI(base) },
			addr: base, openaiAddr: base, usesOpenAI: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg()
			addr, fromHost := cfg.Addr()
			if addr != tt.addr || fromHost != tt.fromHost {
				t.Errorf("Addr() = %q, %v; want %q, %v", addr, fromHost, tt.addr, tt.fromHost)
			}
			if got := cfg.OpenAIAddr(); got != tt.openaiAddr {
				t.Errorf("OpenAIAddr() = %q, want %q", got, tt.openaiAddr)
			}
			if got := cfg.UsesOpenAI(); got != tt.usesOpenAI {
				t.Errorf("UsesOpenAI() = %v, want %v", got, tt.usesOpenAI)
			}
		})
	}
}
