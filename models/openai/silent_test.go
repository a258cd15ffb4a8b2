package openai_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openai"
)

// TestSilentServer: a server that takes the connection and never answers
// is cut off: each question about itself after the contact timeout
// (ErrNoAnswer naming the address and the request), the tool probe, a
// chat request, after the header timeout.
func TestSilentServer(t *testing.T) {
	c, err := openai.New(ollamatest.Silent(t), "")
	if err != nil {
		t.Fatal(err)
	}
	c.ContactTimeout, c.HeaderTimeout = 100*time.Millisecond, 100*time.Millisecond
	for name, ask := range map[string]func() error{
		"GET /v1/models": func() error { _, err := c.Models(t.Context()); return err },
		"GET /api/version": func() error {
			_, ok, err := c.IsOllama(t.Context())
			if ok {
				t.Error("a silent server is Ollama")
			}
			return err
		},
		"describe": func() error { _, err := c.Describe(t.Context(), "m"); return err },
	} {
		err := ask()
		var na *models.NoAnswerError
		if !errors.As(err, &na) || na.Host != c.Host() || na.After != 100*time.Millisecond {
			t.Errorf("%s: %v; want ErrNoAnswer naming %s after 100ms", name, err, c.Host())
		}
		if name != "describe" && na != nil && na.What != name {
			t.Errorf("%s: the error names %q", name, na.What)
		}
	}
	if _, err := c.ProbeTools(t.Context(), "m"); !errors.Is(err, models.ErrStalled) {
		t.Errorf("tool probe: %v; want ErrStalled", err)
	}
}

// TestProbeOfAServerThatOnlyKeepsAlive: a server that answers the tool
// probe's headers and then streams only keep-alive comments is cut off
// after the idle limit: comments are no progress.
func TestProbeOfAServerThatOnlyKeepsAlive(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	c, err := openai.New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	c.IdleTimeout = 200 * time.Millisecond
	if _, err := c.ProbeTools(t.Context(), "m"); !errors.Is(err, models.ErrStalled) {
		t.Errorf("tool probe: %v; want ErrStalled", err)
	}
}
