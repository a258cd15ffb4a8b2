package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
)

// The SDK reads one JSON-RPC message a line and, for a line it cannot
// read, only logs it. A client that sends such a line then waits for an
// answer that never comes, so screen answers those lines itself with the
// protocol's errors — -32700 for text that is not JSON, -32600 for JSON
// that is no request, notification or response — and passes the rest on.

// maxLine is the longest message read, as the SDK's own limit.
const maxLine = 10 << 20

// lineWriter serialises whole lines from the SDK and from screen, and
// runs what waits for a session/new response once that response is out.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
	// opened holds, by session id, what must follow the response that
	// gives the client that id: the SDK writes a response after its
	// handler returns, and a client that looks an update's session up by
	// its id drops updates for a session it has not heard of yet, so they
	// wait for the response.
	opened map[string]func()
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	var then func()
	if len(l.opened) > 0 && err == nil {
		if id := openedSession(p); id != "" {
			then = l.opened[id]
			delete(l.opened, id)
		}
	}
	l.mu.Unlock()
	if then != nil {
		// Not here: the SDK writes while it holds its own write lock,
		// and what follows writes through the SDK.
		go then()
	}
	return n, err
}

// afterOpened runs f once the response giving the client session id is
// written.
func (l *lineWriter) afterOpened(id string, f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened == nil {
		l.opened = map[string]func(){}
	}
	l.opened[id] = f
}

// openedSession returns the session id a session/new response in line
// gives the client, "" when line is no such response.
func openedSession(line []byte) string {
	if !bytes.Contains(line, []byte(`"result"`)) {
		return ""
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil || len(msg.ID) == 0 {
		return ""
	}
	return msg.Result.SessionID
}

// screen returns what of in the connection may read: the well-formed
// messages. It answers the others on out.
func screen(in io.Reader, out io.Writer, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if reply := malformed(line); reply != nil {
				log.Warn("malformed message from the client", "line", string(line[:min(len(line), 200)]))
				out.Write(reply)
				continue
			}
			if _, err := pw.Write(append(line, '\n')); err != nil {
				return // the connection has stopped reading
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// malformed returns the error response to line when it is not a
// JSON-RPC message, nil when it is one.
func malformed(line []byte) []byte {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		if !json.Valid(line) {
			return errorLine(nil, -32700, "Parse error", "the message is not JSON: "+err.Error())
		}
		return errorLine(nil, -32600, "Invalid request", "a message must be one JSON object (batches are not supported)")
	}
	id, hasID := msg["id"]
	method, hasMethod := msg["method"]
	if hasID && !validID(id) {
		return errorLine(nil, -32600, "Invalid request", "the id must be a string, a number or null")
	}
	var name string
	switch {
	case hasMethod && (json.Unmarshal(method, &name) != nil || name == ""):
		return errorLine(id, -32600, "Invalid request", "the method must be a non-empty string")
	case hasMethod:
		return nil // a request or a notification
	case hasID && (msg["result"] != nil || msg["error"] != nil):
		return nil // a response
	}
	return errorLine(id, -32600, "Invalid request", "the message has no method, and is no response")
}

func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case nil, string, float64:
		return true
	}
	return false
}

// errorLine is a JSON-RPC error response, a line of its own.
func errorLine(id json.RawMessage, code int, message, detail string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message, "data": map[string]any{"error": detail}},
	})
	return append(b, '\n')
}
