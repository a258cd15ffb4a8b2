package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/html/charset"
)

//go:embed fetch_url.md
var fetchURLDoc string

const (
	// fetchTimeout bounds a whole fetch (connect, redirects, body) when the
	// client given to NewFetchURL sets no Timeout of its own.
	fetchTimeout = 15 * time.Second
	// fetchMaxBody is the most bytes of a body fetch_url reads; the rest
	// of a bigger page is dropped, and the result says so.
	fetchMaxBody = 2 << 20
	// fetchMaxRedirects is how many redirects fetch_url follows.
	fetchMaxRedirects = 5
)

type fetchURL struct {
	Decl
	ws     *Workspace
	client *http.Client
	guard  *netGuard
}

// errTooManyRedirects stops a redirect chain longer than fetchMaxRedirects.
var errTooManyRedirects = errors.New("too many redirects")

// NewFetchURL returns the fetch_url tool of tier 3: an HTTP GET whose
// body comes back as readable text. It follows up to 5 redirects, reads at
// most 2 MiB, and takes at most client.Timeout (15 s when the client sets
// none, or client is nil). It does not consult robots.txt: it fetches one
// page the user approved, as a browser would. Its effect is External, so
// every call needs approval.
//
// It refuses loopback, private, link-local and other special addresses,
// checked on the URL, on every redirect and at connect time, except for
// allowHosts ("host" or "host:port"), which only the user's own config
// names. A client with a Transport of its own (tests) skips the
// connect-time check.
func NewFetchURL(ws *Workspace, client *http.Client, allowHosts ...string) Tool {
	g := newNetGuard(allowHosts)
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	if c.Timeout <= 0 {
		c.Timeout = fetchTimeout
	}
	if c.Transport == nil {
		c.Transport = g.transport()
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > fetchMaxRedirects {
			return errTooManyRedirects
		}
		return g.checkURL(req.Context(), req.URL)
	}
	return &fetchURL{ws: ws, client: c, guard: g, Decl: Declare[fetchArgs]("fetch_url", fetchURLDoc)}
}

type fetchArgs struct {
	URL string `json:"url" tool:"required,subject"`
}

func (t *fetchURL) Effect() Effect { return External }

func (t *fetchURL) Run(ctx context.Context, in Input) Result {
	var args fetchArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("fetch_url: bad arguments", "%v", err)
	}
	target, err := fetchTarget(args.URL)
	if err != nil {
		return fail("fetch_url: bad url", "%v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return fail("fetch_url: bad url", "cannot fetch %q: %v", target, err)
	}
	if err := t.guard.checkURL(ctx, req.URL); err != nil {
		return t.failure(ctx, target, err)
	}
	req.Header.Set("User-Agent", "tern-fetch_url/1 (a coding agent fetching one page for its user)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5")
	resp, err := t.client.Do(req)
	if err != nil {
		return t.failure(ctx, target, err)
	}
	defer resp.Body.Close()

	final := resp.Request.URL.String()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	ctype := resp.Header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(ctype)
	sniff := mediaType == "" || mediaType == "application/octet-stream"
	if ok && !sniff && textKind(mediaType) == "" {
		return refuseBinary(final, mediaType, resp.ContentLength) // without downloading it
	}
	body, cut, readErr := readBody(resp.Body, fetchMaxBody)
	if readErr != nil && len(body) == 0 {
		return t.failure(ctx, final, readErr)
	}
	if readErr != nil && ctx.Err() != nil {
		return fail("fetch_url: cancelled", "not finished: the user cancelled the turn")
	}
	binary := looksBinary(body[:min(len(body), sniffSize)])
	if sniff && !binary {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		ctype = mediaType
	}
	kind := textKind(mediaType)
	if binary {
		kind = ""
	}
	text, title := "", ""
	if kind != "" {
		text = decodeCharset(body, ctype)
		if kind == "html" {
			if title, text, err = htmlToMarkdown(text, final); err != nil {
				return fail("fetch_url: bad html", "cannot convert the HTML of %s: %v", final, err)
			}
		}
	}
	if !ok {
		out := fmt.Sprintf("HTTP %s from %s", resp.Status, final)
		if excerpt, _ := Cap(strings.TrimSpace(text), 400); excerpt != "" {
			out += "\n" + excerpt
		}
		return fail(fmt.Sprintf("fetch_url: HTTP %d", resp.StatusCode), "%s", out)
	}
	if kind == "" {
		size := resp.ContentLength
		if size < 0 && !cut {
			size = int64(len(body))
		}
		return refuseBinary(final, mediaType, size)
	}

	var head strings.Builder
	if title != "" {
		fmt.Fprintf(&head, "Title: %s\n", title)
	}
	fmt.Fprintf(&head, "URL: %s", final)
	if final != target {
		fmt.Fprintf(&head, " (redirected from %s)", target)
	}
	head.WriteByte('\n')
	if cut {
		fmt.Fprintf(&head, "(the page is over %s; only its first %s were read)\n", humanSize(fetchMaxBody), humanSize(fetchMaxBody))
	}
	if readErr != nil {
		why := rootCause(readErr).Error()
		if errors.Is(readErr, context.DeadlineExceeded) || strings.Contains(why, "Client.Timeout") {
			why = fmt.Sprintf("timed out after %v", t.client.Timeout)
		}
		fmt.Fprintf(&head, "(the download broke off after %s (%s); what arrived follows)\n", humanSize(int64(len(body))), why)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		text = "(empty page)"
	}
	out := head.String() + "\n" + text
	lines := strings.Count(text, "\n") + 1
	return Result{
		Output:  t.ws.Fit("fetch_url", out, in.Limit),
		Summary: fmt.Sprintf("%s: %s, %s", resp.Request.URL.Host, plural(lines, "line", "lines"), humanSize(int64(len(body)))),
	}
}

// fetchTarget checks the url argument. A bare host or path such as
// "go.dev/doc" gets https://, since small models often leave it out.
func fetchTarget(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New(`url is required, e.g. {"url":"https://go.dev/doc/"}`)
	}
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "file:") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid address: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("fetch_url takes http:// and https:// addresses, not %s:; for files in the workspace use read_file", u.Scheme)
	}
	if u.Host == "" {
		return "", fmt.Errorf("%q has no host name", raw)
	}
	return u.String(), nil
}

// readBody reads at most max bytes; cut reports that there was more.
func readBody(r io.Reader, max int) (body []byte, cut bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, int64(max)+1))
	if len(body) > max {
		return body[:max], true, err
	}
	return body, false, err
}

// textKind says how fetch_url shows a media type: "html", "text", or ""
// for types it does not read.
func textKind(mediaType string) string {
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return "html"
	case strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/javascript", mediaType == "application/x-javascript",
		mediaType == "application/yaml", mediaType == "application/x-yaml", mediaType == "application/toml",
		mediaType == "application/x-sh", mediaType == "application/sql", mediaType == "application/graphql":
		return "text"
	}
	return ""
}

// refuseBinary is the result for a body fetch_url does not read; size is
// negative when unknown.
func refuseBinary(final, mediaType string, size int64) Result {
	kind := mediaType
	if kind == "" || kind == "application/octet-stream" {
		kind = "binary data"
	}
	sz := "size unknown"
	if size >= 0 {
		sz = humanSize(size)
	}
	return fail("fetch_url: "+kind, "%s is %s (%s), not text; fetch_url reads HTML, text and JSON only", final, kind, sz)
}

// decodeCharset converts body to UTF-8 from the charset the Content-Type
// header or, for HTML, a <meta> tag names; invalid bytes become U+FFFD.
func decodeCharset(body []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err == nil {
		if b, err := io.ReadAll(r); err == nil {
			body = b
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}

// failure turns an error from the HTTP client into a result that says
// what happened in words a user and a model can act on.
func (t *fetchURL) failure(ctx context.Context, target string, err error) Result {
	host := target
	if u, perr := url.Parse(target); perr == nil {
		host = u.Host
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		return fail("fetch_url: cancelled", "not finished: the user cancelled the turn")
	case asBlocked(err) != nil:
		return fail("fetch_url: refused", "fetch_url refused %s: %v. tern does not fetch from this machine or its private networks; do not retry. Only the user can allow a host, with fetch_allow = [\"HOST:PORT\"] in their own config file", target, asBlocked(err))
	case errors.Is(err, errTooManyRedirects):
		return fail("fetch_url: redirect loop", "%s redirects more than %d times; stopped. Try the final address directly", target, fetchMaxRedirects)
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return fail("fetch_url: timed out", "fetching %s timed out after %v; the site is slow or unreachable", target, t.client.Timeout)
	case errors.As(err, &dnsErr):
		return fail("fetch_url: offline", "network unavailable: cannot resolve %s (%s). tern works offline; fetch_url needs network access", dnsErr.Name, dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH),
		errors.As(err, &opErr) && opErr.Op == "dial":
		return fail("fetch_url: offline", "network unavailable: cannot connect to %s (%v). tern works offline; fetch_url needs network access", host, rootCause(err))
	}
	return fail("fetch_url: error", "fetching %s failed: %v", target, rootCause(err))
}

// rootCause strips the url.Error and net.OpError wrappers, whose text
// repeats the address.
func rootCause(err error) error {
	for {
		var next error
		var uerr *url.Error
		var oerr *net.OpError
		switch {
		case errors.As(err, &oerr) && oerr.Err != nil:
			next = oerr.Err
		case errors.As(err, &uerr) && uerr.Err != nil:
			next = uerr.Err
		}
		if next == nil || next == err {
			return err
		}
		err = next
	}
}
