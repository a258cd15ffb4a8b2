package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
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
// messages. It answers the others on out; a response too large to read
// reaches the connection as an error response to the request it answers.
func screen(in io.Reader, out io.Writer, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, rest, err := readLine(br)
			if rest != nil {
				toConn, toClient := oversized(line, rest)
				log.Warn("message over the size tern acp reads", "bytes", rest.n, "limit", maxLine)
				if toClient != nil {
					out.Write(toClient)
				}
				if toConn != nil {
					if _, err := pw.Write(toConn); err != nil {
						return
					}
				}
				continue
			}
			if line = bytes.TrimSpace(line); len(line) > 0 {
				if reply := malformed(line); reply != nil {
					log.Warn("malformed message from the client", "line", string(line[:min(len(line), 200)]))
					out.Write(reply)
				} else if _, err := pw.Write(append(line, '\n')); err != nil {
					return // the connection has stopped reading
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line of br. A line longer than maxLine comes back
// as its first maxLine bytes and rest, the reader of the others up to
// its end, which must be read to the end.
func readLine(br *bufio.Reader) (line []byte, rest *lineRest, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return line, &lineRest{br: br, n: len(line), done: err != bufio.ErrBufferFull}, nil
		}
		if err != bufio.ErrBufferFull {
			return line, nil, err
		}
	}
}

// lineRest reads the rest of a long line, to its newline.
type lineRest struct {
	br      *bufio.Reader
	pending []byte // read from br, not yet from the lineRest
	n       int    // bytes of the line read from br so far
	done    bool   // the line's end was read from br
}

func (r *lineRest) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if r.done {
			return 0, io.EOF
		}
		chunk, err := r.br.ReadSlice('\n')
		r.done = err != bufio.ErrBufferFull // the newline, or an error the next read sees
		r.pending = append(r.pending[:0], chunk...)
		r.n += len(chunk)
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// oversized reads a message too long to pass on, head and then rest,
// for its id and whether it is a request, and says what to do: an error
// response to a request goes to the client; a response becomes an error
// response the connection hands to the request waiting for it. A
// notification, or what is no message at all, is dropped.
func oversized(head []byte, rest *lineRest) (toConn, toClient []byte) {
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader(head), rest))
	var id json.RawMessage
	var request, response bool
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				break
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				break
			}
			switch key {
			case "id":
				id = v
			case "method":
				request = true
			case "result", "error":
				response = true
			}
		}
	}
	io.Copy(io.Discard, rest)
	why := fmt.Sprintf("is too large: %d bytes, over the %d (%d MiB) tern acp reads", rest.n, maxLine, maxLine>>20)
	switch {
	case len(id) == 0 || !validID(id) || string(id) == "null":
		return nil, nil
	case request:
		return nil, errorLine(id, -32600, "Invalid request", "the message "+why)
	case response:
		return errorLine(id, -32603, "Internal error", "the editor's answer "+why), nil
	}
	return nil, nil
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
