package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
)

// start runs the command on a free port and returns its URL.
func start(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), w)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the listening line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "fake ollama listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	return url
}

func TestScriptThenDemo(t *testing.T) {
	c, err := ollama.New(start(t, "--script", "testdata/hello.ndjson", "--models", "qwen3, nomic-embed"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.List(t.Context())
	if err != nil || len(list) != 2 {
		t.Fatalf("models %+v, %v", list, err)
	}
	req := models.Request{Model: "qwen3:8b", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}}}
	reply, err := c.Chat(t.Context(), req, nil)
	if err != nil || reply.Message.Content != "Hello from the script." {
		t.Fatalf("scripted reply %q, %v", reply.Message.Content, err)
	}
	req.Tools = []models.ToolSpec{{Name: "list_dir", Parameters: models.Schema(models.Param{Name: "path", Type: "string"})}}
	reply, err = c.Chat(t.Context(), req, nil)
	if err != nil || len(reply.Message.ToolCalls) != 1 || reply.Message.ToolCalls[0].Name != "list_dir" {
		t.Fatalf("demo reply %+v, %v; want a list_dir call", reply.Message, err)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--models", "gpt-9"},
		{"--script", "testdata/missing.json"},
		{"--addr", "not an address"},
	} {
		if err := run(t.Context(), args, io.Discard); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
