package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealOllama runs tern against a real Ollama when TERN_OLLAMA_MODEL
// names an installed model (OLLAMA_HOST picks the server). CI has no
// Ollama, so it skips there.
func TestRealOllama(t *testing.T) {
	t.Parallel()
	model := os.Getenv("TERN_OLLAMA_MODEL")
	if model == "" {
		t.Skip("set TERN_OLLAMA_MODEL (and OLLAMA_HOST if needed) to run against a real Ollama")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet\n\n// Hello returns the greeting the program prints.\nfunc Hello() string { return \"hello, tern\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OLLAMA_HOST": os.Getenv("OLLAMA_HOST"), "HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}
	f := &fixture{t: t, dir: dir, env: env}

	code, out, errOut := f.tern(t.Context(), "doctor", "--model", model)
	if code != 0 {
		t.Fatalf("doctor exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = f.tern(t.Context(), "ask", "--model", model, "What string does Hello in greet.go return? Read the file, then answer with the string.")
	if code != 0 {
		t.Fatalf("ask exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(strings.ToLower(out), "hello, tern") {
		t.Errorf("the answer does not quote the file:\nstdout: %s\nstderr: %s", out, errOut)
	}
}
