package ollama_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestNewResolvesHostLikeOllama(t *testing.T) {
	tests := []struct {
		host, env, want string
	}{
		{"", "", "http://127.0.0.1:11434"},
		{"", "0.0.0.0", "http://0.0.0.0:11434"},
		{"", `"localhost:1234"`, "http://localhost:1234"},
		{"localhost:1234", "example.com", "http://localhost:1234"}, // the flag wins over the environment
		{"example.com", "", "http://example.com:11434"},
		{"http://localhost", "", "http://localhost:80"}, // an explicit scheme means its own default port
		{"https://example.com", "", "https://example.com:443"},
		{"http://host:11434/prefix", "", "http://host:11434/prefix"},
		{"ollama.com", "", "https://ollama.com:443"},
		{"::1", "", "http://[::1]:11434"},
		{"[::1]:8080", "", "http://[::1]:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.host+"|"+tt.env, func(t *testing.T) {
			host := tt.host
			if host == "" { // as tern does: the flag, else the environment
				host = ollama.EnvHost(func(k string) string { return map[string]string{"OLLAMA_HOST": tt.env}[k] })
			}
			c, err := ollama.New(host)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Host(); got != tt.want {
				t.Errorf("Host() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewRejectsInvalidHosts(t *testing.T) {
	for _, host := range []string{"localhost:notaport", "localhost:99999", "ftp://example.com", "http://a b:80", "http://:80"} {
		t.Run(host, func(t *testing.T) {
			if c, err := ollama.New(host); err == nil {
				t.Errorf("New(%q) = %s, want an error", host, c.Host())
			}
		})
	}
}

func TestDeadPortIsUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := ollama.New(addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}}}, nil)
	if !errors.Is(err, models.ErrUnreachable) || !strings.Contains(err.Error(), c.Host()) {
		t.Errorf("chat on a dead port: %v, want ErrUnreachable naming %s", err, c.Host())
	}
	if _, err := c.Version(t.Context()); !errors.Is(err, models.ErrUnreachable) {
		t.Errorf("version on a dead port: %v, want ErrUnreachable", err)
	}
}

func TestUnknownHostIsUnreachable(t *testing.T) {
	c, err := ollama.New("no-such-host.invalid:11434")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(t.Context()); !errors.Is(err, models.ErrUnreachable) {
		t.Errorf("list on an unknown host: %v, want ErrUnreachable", err)
	}
}

func TestVersion(t *testing.T) {
	s := ollamatest.New(t)
	c := newClient(t, s)
	v, err := c.Version(t.Context())
	if err != nil || v != ollamatest.Version {
		t.Errorf("Version() = %q, %v", v, err)
	}
}

func newClient(t *testing.T, s *ollamatest.Server) *ollama.Client {
	t.Helper()
	c, err := ollama.New(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNoEnvironment: the client reads no environment variable; tern
// passes OLLAMA_HOST in from the getenv its Main was given (EnvHost), so
// tests and embedders decide what the client sees.
func TestNoEnvironment(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"os.Getenv(", "os.LookupEnv(", "os.Environ("} {
			if strings.Contains(string(data), call) {
				t.Errorf("%s calls %s: take the value as a parameter instead", name, call)
			}
		}
	}
}

// TestSilentServer: a server that takes the connection and never answers
// is cut off after the contact timeout, by every question about itself,
// with an error naming the address and the request.
func TestSilentServer(t *testing.T) {
	addr := ollamatest.Silent(t)
	c, err := ollama.New(addr, ollama.WithLimits(ollama.Limits{ContactTimeout: 100 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	for name, ask := range map[string]func() error{
		"GET /api/version": func() error { _, err := c.Version(t.Context()); return err },
		"GET /api/tags":    func() error { _, err := c.List(t.Context()); return err },
		"POST /api/show":   func() error { _, err := c.Show(t.Context(), "qwen3:8b"); return err },
		"GET /api/ps":      func() error { _, err := c.Running(t.Context()); return err },
	} {
		err := ask()
		var na *models.NoAnswerError
		if !errors.Is(err, models.ErrNoAnswer) || !errors.As(err, &na) || na.Host != c.Host() || na.What != name || na.After != 100*time.Millisecond {
			t.Errorf("%s: %v (%+v); want ErrNoAnswer naming %s after 100ms", name, err, na, c.Host())
		}
	}
	// A cancelled question is a cancellation, not a silent server.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.List(ctx); !errors.Is(err, context.Canceled) || errors.Is(err, models.ErrNoAnswer) {
		t.Errorf("cancelled list: %v", err)
	}
}
