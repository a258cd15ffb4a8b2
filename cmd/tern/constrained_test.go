package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestAskConstrainedToolMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Script(
		ollamatest.Reply{Content: `{"name": "list_dir", "arguments": {"path": "."}}`},
		ollamatest.Reply{Content: `{"answer": "Three files."}`},
	)
	code, out, errOut := f.tern(t.Context(), "ask", "--tool-mode", "constrained", "what files are here?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "replies held to a JSON schema (--tool-mode constrained)") {
		t.Errorf("stderr does not say the constrained mode is used:\n%s", errOut)
	}
	if out != "Three files.\n" {
		t.Errorf("stdout = %q", out)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		if len(r.Tools) > 0 || !strings.Contains(string(r.Format), `"anyOf"`) || !strings.Contains(string(r.Format), `{"const":"list_dir"}`) {
			t.Fatalf("request not held to the schema: tools %d, format %s", len(r.Tools), r.Format)
		}
	}
	if !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "README") && !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "tool_response") {
		t.Errorf("the listing did not go back to the model: %q", reqs[1].Messages[len(reqs[1].Messages)-1].Content)
	}
}

func TestConstrainedToolModeFromConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfgPath := config.UserPath(func(k string) string { return f.env[k] })
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte("tool_mode = \"constrained\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(ollamatest.Reply{Content: `{"answer": "Hello."}`})
	code, out, errOut := f.tern(t.Context(), "ask", "hi")
	if code != 0 || out != "Hello.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if reqs := f.srv.Requests(); len(reqs[0].Format) == 0 {
		t.Error("tool_mode = \"constrained\" sent no schema")
	}
}
