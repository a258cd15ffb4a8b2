// Package openai adapts OpenAI-compatible servers (llama.cpp's
// llama-server, LM Studio, vLLM) to the vocabulary of package models:
// streamed chat with native tools over /v1/chat/completions (tool-call
// deltas assembled into whole calls), the token usage the server reports,
// embeddings over /v1/embeddings, and what each kind of server says about
// itself: the model list, the served context window and where it came
// from (llama-server's /props, vLLM's max_model_len, LM Studio's
// /api/v0/models), and whether the server takes tools.
//
// Errors carry the sentinels of package models (ErrUnreachable,
// ErrModelNotFound, ErrNoTools, ErrIncomplete) together with the server's
// own words. The package imports models only; it must not import agent,
// tui, session, tools or cmd.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ternhq/tern/models"
)

// dialTimeout bounds connection setup only: a reply stream may run for
// minutes, so callers bound requests with their ctx.
const dialTimeout = 2 * time.Second

// Client talks to one OpenAI-compatible server.
type Client struct {
	// root is the server's address without the /v1 suffix: llama-server's
	// /props and LM Studio's /api/v0 live beside /v1, not under it.
	root *url.URL
	key  string
	http *http.Client
	// calls numbers the tool calls whose id the server left out.
	calls atomic.Int64
	// IdleTimeout ends a reply stream that sends nothing for this long
	// (comment pings count); 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// HeaderTimeout ends a request whose server sends no response headers
	// for this long; 0 means DefaultIdleTimeout.
	HeaderTimeout time.Duration
	// MaxReplyBytes caps the text (content, reasoning and call arguments)
	// of one reply; 0 means DefaultMaxReplyBytes.
	MaxReplyBytes int
	// ContactTimeout bounds each question about the server (its models,
	// its window, what it is), which a working server answers at once;
	// 0 means DefaultContactTimeout.
	ContactTimeout time.Duration
}

// DefaultContactTimeout is how long a server may take to answer a
// question about itself.
const DefaultContactTimeout = 10 * time.Second

// errNoAnswer is the cause a question about the server is cut for.
var errNoAnswer = errors.New("no answer")

// DefaultMaxReplyBytes caps one reply's text.
const DefaultMaxReplyBytes = 1 << 20

// DefaultIdleTimeout is how long a reply stream may stay silent. It is
// long: a 30B mixture-of-experts model with its experts in system memory
// can take minutes to read a long prompt before its first token.
const DefaultIdleTimeout = 10 * time.Minute

// MaxLineBytes caps one line of a reply stream. A server that sends more
// without a newline is broken, and reading on would only use up memory.
const MaxLineBytes = 8 << 20

// New returns a client for baseURL, such as "http://127.0.0.1:8080" or
// "http://127.0.0.1:8080/v1" (the two mean the same server). A URL without
// a scheme gets http://. apiKey, when set, is sent as a bearer token.
func New(baseURL, apiKey string) (*Client, error) {
	s := strings.TrimSpace(baseURL)
	if s == "" {
		return nil, fmt.Errorf("openai base URL is empty")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("openai base URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("openai base URL %q: scheme must be http or https", baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("openai base URL %q: no host", baseURL)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	u.RawQuery, u.Fragment = "", ""
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	return &Client{root: u, key: strings.TrimSpace(apiKey), http: &http.Client{Transport: transport}}, nil
}

// Host returns the server's address, such as "http://127.0.0.1:8080".
func (c *Client) Host() string { return c.root.String() }

// url is the address of path ("/v1/models", "/props") on the server.
func (c *Client) url(path string) string {
	u := *c.root
	p, q, _ := strings.Cut(path, "?")
	u.Path = strings.TrimSuffix(u.Path, "/") + p
	u.RawQuery = q
	return u.String()
}

// do sends a request and returns the response when its status is 2xx;
// otherwise the server's error, with its sentinel.
func (c *Client) do(ctx context.Context, what, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), rd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.fail(ctx, what, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, statusError(what, method+" "+strings.SplitN(path, "?", 2)[0], resp.StatusCode, data)
	}
	return resp, nil
}

// getJSON fetches path and decodes its JSON body into v, within the
// contact timeout: a question about the server.
func (c *Client) getJSON(ctx context.Context, what, path string, v any) error {
	limit := cmp.Or(c.ContactTimeout, DefaultContactTimeout)
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errNoAnswer)
	defer cancel()
	err := c.readJSON(ctx, what, path, v)
	if err != nil && context.Cause(ctx) == errNoAnswer {
		return &models.NoAnswerError{What: "GET " + strings.SplitN(path, "?", 2)[0], Host: c.Host(), After: limit}
	}
	return err
}

func (c *Client) readJSON(ctx context.Context, what, path string, v any) error {
	resp, err := c.do(ctx, what, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 32<<20)).Decode(v); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%s: %w", what, cerr)
		}
		return fmt.Errorf("%s: reading the answer: %w", what, err)
	}
	return nil
}
