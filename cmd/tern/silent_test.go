package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// silentLimit is the contact timeout the silent-server tests configure;
// cutOff is what they allow for it, far below the minutes a generation
// limit would take, with room for a loaded machine.
const (
	silentLimit = "1s"
	cutOff      = 20 * time.Second
)

// silentFixture is a workspace whose model server takes connections and
// never answers, with stream.contact_timeout set to silentLimit.
func silentFixture(t *testing.T) (f *fixture, addr string) {
	t.Helper()
	f = newFixture(t)
	addr = ollamatest.Silent(t)
	f.env["OLLAMA_HOST"] = addr
	f.config("[stream]\ncontact_timeout = \"" + silentLimit + "\"\n")
	return f, addr
}

// TestSilentServerCLI: tern ask and tern doctor, against a server that
// takes the connection and never answers, stop within the contact
// timeout, for either backend, saying which address did not answer, what
// to check and which setting is the limit.
func TestSilentServerCLI(t *testing.T) {
	t.Parallel()
	f, addr := silentFixture(t)
	for _, args := range [][]string{
		{"ask", "hi"},
		{"ask", "--backend", "ollama", "hi"},
		{"ask", "--backend", "openai", "hi"},
		{"doctor"},
		{"doctor", "--backend", "openai"},
	} {
		began := time.Now()
		code, out, errOut := f.tern(t.Context(), args...)
		took := time.Since(began)
		text := out + errOut
		if code != exitError || took > cutOff {
			t.Errorf("%q: exit %d after %s; want 1 within %s", args, code, took, cutOff)
		}
		for _, want := range []string{"http://" + addr + " took the connection but did not answer", "within " + silentLimit,
			"restart it if it is stuck", "stream.contact_timeout"} {
			if !strings.Contains(text, want) {
				t.Errorf("%q does not say %q:\n%s", args, want, text)
			}
		}
		if args[0] == "doctor" && !strings.Contains(out, "Workspace   ✓") {
			t.Errorf("%q stopped checking at the server:\n%s", args, out)
		}
	}
}

// TestSilentServerTUI: the TUI's connect gives up on a silent server
// within the contact timeout and says why (it tries again meanwhile), and
// its /doctor returns.
func TestSilentServerTUI(t *testing.T) {
	t.Parallel()
	f, addr := silentFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	began := time.Now()
	sim, done := f.startTUIWith(ctx, 400, 40)
	waitScreen(t, sim, "offline", "http://"+addr+" took the connection but did not answer", "within "+silentLimit)
	if took := time.Since(began); took > cutOff {
		t.Errorf("the TUI said so after %s; want within %s", took, cutOff)
	}
	typeLine(sim, "/doctor")
	waitScreen(t, sim, "Backend     ✗", "Workspace   ✓")

	quit(t, sim, done)
}
