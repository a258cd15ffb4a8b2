package lsp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// document is a file open in the server, as tern last sent it.
type document struct {
	version int32
	text    string
}

// published is the latest diagnostics the server sent for one file.
type published struct {
	version int32 // 0 when the server sent none
	seq     uint64
	diags   []protocol.Diagnostic
}

// document returns what tern last sent of the file at uri, if it is open.
func (c *client) document(uri protocol.DocumentURI) (document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[uri]
	if !ok {
		return document{}, false
	}
	return *d, true
}

// send makes text the server's content of the file at path (opening it,
// or replacing its whole text) and returns the new version and the
// publish count before it, to wait on (waitPublish).
func (c *client) send(path, text string) (version int32, since uint64, err error) {
	uri := protocol.URIFromPath(path)
	c.mu.Lock()
	d, open := c.docs[uri]
	if !open {
		d = &document{}
		c.docs[uri] = d
	}
	d.version++
	d.text = text
	version, since = d.version, c.seq
	c.mu.Unlock()
	if !open {
		err = c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: uri, LanguageID: protocol.LanguageKind(languageID(path, c.srv.Name)), Version: version, Text: text}})
	} else {
		err = c.notify("textDocument/didChange", protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{Version: version, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Value: protocol.TextDocumentContentChangeWholeDocument{Text: text}}}})
	}
	return version, since, err
}

// hasPublished reports whether the server published diagnostics for the
// file at uri at its current version.
func (c *client) hasPublished(uri protocol.DocumentURI) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.diags[uri]
	d := c.docs[uri]
	return ok && d != nil && (p.version >= d.version || p.version == 0 && p.seq > 0)
}

// waitPublish waits until the server has published diagnostics for the
// file at path at version or later: a publish counted after since whose
// version is at least version, or that carries no version.
func (c *client) waitPublish(ctx context.Context, path string, version int32, since uint64) error {
	uri := protocol.URIFromPath(path)
	for {
		c.mu.Lock()
		p, ok := c.diags[uri]
		news := c.news
		c.mu.Unlock()
		if ok && p.seq > since && (p.version >= version || p.version == 0) {
			return nil
		}
		select {
		case <-news:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.exited:
			return c.err
		}
	}
}

// settle waits until the server has published nothing for quiet, or ctx
// ends: diagnostics of the files that depend on a changed one come just
// after its own.
func (c *client) settle(ctx context.Context, quiet time.Duration) {
	t := time.NewTimer(quiet)
	defer t.Stop()
	for {
		c.mu.Lock()
		news := c.news
		c.mu.Unlock()
		select {
		case <-news:
			t.Reset(quiet)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		case <-c.exited:
			return
		}
	}
}

// snapshot returns the latest diagnostics of every file, by path.
func (c *client) snapshot() map[string][]protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]protocol.Diagnostic, len(c.diags))
	for uri, p := range c.diags {
		if path, err := uri.Path(); err == nil {
			out[path] = p.diags
		}
	}
	return out
}

// locations asks method (textDocument/definition or /references) at pos
// in the file at path.
func (c *client) locations(ctx context.Context, method, path string, pos protocol.Position) ([]protocol.Location, error) {
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(path)}, Position: pos}
	var params any = protocol.DefinitionParams{TextDocumentPositionParams: at}
	if method == "textDocument/references" {
		params = protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	}
	var raw json.RawMessage
	if err := c.call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return parseLocations(raw)
}

// parseLocations reads a definition or references result: null, a
// Location, or an array of Locations or LocationLinks.
func parseLocations(raw json.RawMessage) ([]protocol.Location, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '{' {
		var l protocol.Location
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		return []protocol.Location{l}, nil
	}
	var items []struct {
		protocol.Location
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange protocol.Range       `json:"targetSelectionRange"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]protocol.Location, 0, len(items))
	for _, it := range items {
		if it.TargetURI != "" {
			out = append(out, protocol.Location{URI: it.TargetURI, Range: it.TargetSelectionRange})
		} else {
			out = append(out, it.Location)
		}
	}
	return out, nil
}
