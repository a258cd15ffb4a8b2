package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// The test binary doubles as a fake language server: run as
// `lsp.test fake-lsp MODE`, it speaks LSP on stdin and stdout. It reports
// an error on each line that says BAD and a warning on each that says
// WARN; MODE makes it misbehave:
//
//	ok            as above
//	hang          answers the handshake, then never publishes
//	hang-init     never answers the handshake
//	die-on-change exits, complaining on stderr, at the first change
//	slow-start    answers the handshake after a second
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "fake-lsp" {
		os.Exit(fakeServer(os.Args[2]))
	}
	os.Exit(m.Run())
}

// fakeCommand is the command that runs the fake server in mode.
func fakeCommand(t testing.TB, mode string) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "fake-lsp", mode}
}

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

func fakeServer(mode string) int {
	var mu sync.Mutex
	texts := map[protocol.DocumentURI]string{}
	publish := func(conn *jsonrpc2.Conn, uri protocol.DocumentURI, version int32, text string) {
		var diags []protocol.Diagnostic
		for i, line := range strings.Split(text, "\n") {
			for word, sev := range map[string]protocol.DiagnosticSeverity{"BAD": protocol.SeverityError, "WARN": protocol.SeverityWarning} {
				if c := strings.Index(line, word); c >= 0 {
					at := protocol.Position{Line: uint32(i), Character: uint32(c)}
					diags = append(diags, protocol.Diagnostic{Range: protocol.Range{Start: at, End: at}, Severity: sev,
						Source: "fake", Message: strings.ToLower(word) + " thing"})
				}
			}
		}
		_ = conn.Notify(context.Background(), "textDocument/publishDiagnostics", protocol.PublishDiagnosticsParams{URI: uri, Version: version, Diagnostics: diags})
	}
	h := func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		var params json.RawMessage
		if req.Params != nil {
			params = *req.Params
		}
		switch req.Method {
		case "initialize":
			switch mode {
			case "hang-init":
				select {}
			case "slow-start":
				time.Sleep(time.Second)
			}
			return map[string]any{"capabilities": map[string]any{"textDocumentSync": 1, "definitionProvider": true, "referencesProvider": true},
				"serverInfo": map[string]any{"name": "fake", "version": "1.0"}}, nil
		case "textDocument/didOpen", "textDocument/didChange":
			if mode == "die-on-change" && req.Method == "textDocument/didChange" {
				fmt.Fprintln(os.Stderr, "panic: the fake server broke")
				os.Exit(3)
			}
			var p struct {
				TextDocument struct {
					URI     protocol.DocumentURI `json:"uri"`
					Version int32                `json:"version"`
					Text    string               `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[len(p.ContentChanges)-1].Text
			}
			mu.Lock()
			texts[p.TextDocument.URI] = text
			mu.Unlock()
			if mode != "hang" {
				publish(conn, p.TextDocument.URI, p.TextDocument.Version, text)
			}
			return nil, nil
		case "textDocument/definition", "textDocument/references":
			var p protocol.ReferenceParams
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			return fakeLocations(texts, p.TextDocument.URI, p.Position, req.Method == "textDocument/definition"), nil
		case "shutdown":
			return nil, nil
		case "exit":
			os.Exit(0)
		}
		return nil, nil
	}
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(stdio{}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(h))
	<-conn.DisconnectNotify()
	return 0
}

// fakeLocations finds the word at pos in the open files: where "func
// WORD" is for a definition, every occurrence for references.
func fakeLocations(texts map[protocol.DocumentURI]string, uri protocol.DocumentURI, pos protocol.Position, definition bool) []protocol.Location {
	lines := strings.Split(texts[uri], "\n")
	if int(pos.Line) >= len(lines) {
		return nil
	}
	line := lines[pos.Line]
	start, end := int(pos.Character), int(pos.Character)
	for start > 0 && isWord(line[start-1]) {
		start--
	}
	for end < len(line) && isWord(line[end]) {
		end++
	}
	word := line[start:end]
	var out []protocol.Location
	for u, text := range texts {
		for i, l := range strings.Split(text, "\n") {
			want := word
			if definition {
				want = "func " + word
			}
			if c := strings.Index(l, want); c >= 0 && word != "" {
				if definition {
					c += len("func ")
				}
				at := protocol.Position{Line: uint32(i), Character: uint32(c)}
				out = append(out, protocol.Location{URI: u, Range: protocol.Range{Start: at, End: at}})
			}
		}
	}
	return out
}

func isWord(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
