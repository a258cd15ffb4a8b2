// Command fakeollama serves a scripted fake Ollama (models/ollamatest) so
// that tern can be tried, demonstrated and tested end to end without Ollama
// or a GPU:
//
//	go run ./cmd/fakeollama --addr 127.0.0.1:11434 [--script FILE] [--models qwen3,nomic-embed]
//
// Chat requests are answered from the script, then by a small built-in
// responder that lists the directory and describes what it found. The
// command imports only models/ollamatest and the standard library.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ternhq/tern/models/ollamatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(2)
	}
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakeollama", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:11434", "address to listen on")
	script := fs.String("script", "", "JSON array or NDJSON file of scripted replies, served before the built-in responder")
	names := fs.String("models", "qwen3,nomic-embed", "installed models: tiny, tiny-tools, qwen3, llama3.2, nomic-embed, qwen3.5, gemma3, qwen3.6 (a mixture of experts)")
	if err := fs.Parse(args); err != nil {
		return err
	}

	opts := []ollamatest.Option{ollamatest.WithResponder(ollamatest.DemoResponder)}
	for name := range strings.SplitSeq(*names, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		m, err := ollamatest.Preset(name)
		if err != nil {
			return err
		}
		opts = append(opts, ollamatest.WithModels(m))
	}
	var replies []ollamatest.Reply
	if *script != "" {
		var err error
		if replies, err = ollamatest.LoadScript(*script); err != nil {
			return err
		}
	}

	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	s := ollamatest.NewServer(append(opts, ollamatest.WithListener(l))...)
	defer s.Close()
	s.Script(replies...)
	fmt.Fprintf(stderr, "fake ollama listening on %s\n", s.URL())
	<-ctx.Done()
	return nil
}
