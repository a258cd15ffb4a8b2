package main

import (
	"context"
	"strings"
	"sync"
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
// to check and which setting is the limit. The five commands run at once,
// each on a workspace and a server of its own: one after another they
// waited out the timeout five times.
func TestSilentServerCLI(t *testing.T) {
	t.Parallel()
	type run struct {
		args        []string
		f           *fixture
		addr        string
		code        int
		out, errOut string
		took        time.Duration
	}
	var runs []*run
	for _, args := range [][]string{
		{"ask", "hi"},
		{"ask", "--backend", "ollama", "hi"},
		{"ask", "--backend", "openai", "hi"},
		{"doctor"},
		{"doctor", "--backend", "openai"},
	} {
		f, addr := silentFixture(t)
		runs = append(runs, &run{args: args, f: f, addr: addr})
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			began := time.Now()
			r.code, r.out, r.errOut = r.f.tern(t.Context(), r.args...)
			r.took = time.Since(began)
		})
	}
	wg.Wait()
	for _, r := range runs {
		args, text := r.args, r.out+r.errOut
		if r.code != exitError || r.took > cutOff {
			t.Errorf("%q: exit %d after %s; want 1 within %s", args, r.code, r.took, cutOff)
		}
		for _, want := range []string{"http://" + r.addr + " took the connection but did not answer", "within " + silentLimit,
			"restart it if it is stuck", "stream.contact_timeout"} {
			if !strings.Contains(text, want) {
				t.Errorf("%q does not say %q:\n%s", args, want, text)
			}
		}
		if args[0] == "doctor" && !strings.Contains(r.out, "Workspace   ✓") {
			t.Errorf("%q stopped checking at the server:\n%s", args, r.out)
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
