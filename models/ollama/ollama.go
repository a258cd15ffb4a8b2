// Package ollama adapts Ollama's native HTTP API (github.com/ollama/ollama/api)
// to the vocabulary of package models: streamed chat with native tools,
// model metadata from /api/show, installed and running models, embeddings,
// and the VRAM planner that picks a session's num_ctx.
//
// Errors carry the sentinels of package models (ErrUnreachable,
// ErrModelNotFound, ErrNoTools, …) together with the server's own words.
// The package imports models and Ollama's api package only; it must not
// import agent, tui, session, tools or cmd.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// dialTimeout bounds connection setup only. A dead or blackholed port must
// fail fast; a reply stream may legitimately run for minutes, so the client
// has no overall timeout and callers bound requests with their ctx.
const dialTimeout = 2 * time.Second

// Client talks to one Ollama server.
type Client struct {
	base   *url.URL
	api    *api.Client
	http   *http.Client
	limits Limits
}

// New returns a client for host. An empty host means 127.0.0.1:11434;
// New reads no environment: the caller passes $OLLAMA_HOST in (EnvHost).
// The host is read the way Ollama itself reads OLLAMA_HOST: "example.com"
// means port 11434, but "http://example.com" means port 80 and
// "https://example.com" port 443.
func New(host string, opts ...Option) (*Client, error) {
	base, err := parseHost(host)
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	hc := &http.Client{Transport: transport}
	c := &Client{base: base, api: api.NewClient(base, hc), http: hc, limits: Limits{}.orDefaults()}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// EnvHost returns OLLAMA_HOST as getenv gives it, trimmed of spaces and
// quotes as Ollama trims it; "" when it is unset.
func EnvHost(getenv func(string) string) string {
	return strings.Trim(strings.TrimSpace(getenv("OLLAMA_HOST")), `"'`)
}

// Host returns the resolved base URL, such as "http://127.0.0.1:11434".
func (c *Client) Host() string { return c.base.String() }

// Version returns the server's version string.
func (c *Client) Version(ctx context.Context) (string, error) {
	return question(ctx, c, "ollama version", "", c.api.Version)
}

// errNoAnswer is the cause a question about the server is cut for.
var errNoAnswer = errors.New("no answer")

// question asks the server a question about itself (what names it for
// fail, model the model it is about), within the contact timeout: a
// server that does not answer in time is ErrNoAnswer.
func question[T any](ctx context.Context, c *Client, what, model string, ask func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.limits.ContactTimeout, errNoAnswer)
	defer cancel()
	v, err := ask(ctx)
	if err != nil {
		return v, c.fail(ctx, what, model, err)
	}
	return v, nil
}

// parseHost follows envconfig.Host in Ollama v0.17.4, except that where
// Ollama logs a warning and silently falls back to a default (a bad port),
// parseHost reports an error: a typo in --host should not quietly talk to
// some other server.
func parseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("ollama host %q: scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("ollama host %q: invalid port %q", s, port)
	}
	if host == "" || strings.ContainsAny(host, " \t/?#@") {
		return nil, fmt.Errorf("ollama host %q: invalid host name", s)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}
	if _, err := url.Parse(u.String()); err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", s, err)
	}
	return u, nil
}
