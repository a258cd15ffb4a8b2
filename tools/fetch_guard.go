package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

// netGuard keeps fetch_url away from the machine it runs on and from the
// networks around it: loopback, private, link-local (cloud metadata
// services), shared, multicast and other special addresses are refused,
// unless the user's own config allows the host. It checks twice: the
// address a URL names or resolves to, before each request and redirect, and
// the address a connection really goes to, in the dialer's Control hook,
// so a name that resolves differently the second time (DNS rebinding)
// gains nothing.
type netGuard struct {
	allow map[string]bool // "host" or "host:port", lowercase
	proxy map[string]bool // "host:port" of the HTTP proxies the environment names
	// lookup resolves a name for the check before a request.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

func newNetGuard(allowHosts []string) *netGuard {
	g := &netGuard{allow: map[string]bool{}, proxy: map[string]bool{}, lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	for _, h := range allowHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			g.allow[strings.Trim(h, "[]")] = true
			g.allow[h] = true
		}
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		if u, err := url.Parse(os.Getenv(k)); err == nil && u.Host != "" {
			port := u.Port()
			if port == "" {
				port = map[string]string{"https": "443"}[u.Scheme]
				if port == "" {
					port = "80"
				}
			}
			g.proxy[strings.ToLower(net.JoinHostPort(u.Hostname(), port))] = true
		}
	}
	return g
}

// allowed reports whether the user allowed host (a name or an address)
// with port.
func (g *netGuard) allowed(host, port string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	return g.allow[host] || g.allow[strings.ToLower(net.JoinHostPort(host, port))]
}

// blockedError refuses an address; fetch_url shows it to the model.
type blockedError struct {
	host string
	addr netip.Addr
	kind string
}

func (e *blockedError) Error() string {
	if e.host != "" && e.host != e.addr.String() {
		return fmt.Sprintf("%s resolves to %s, a %s address", e.host, e.addr, e.kind)
	}
	return fmt.Sprintf("%s is a %s address", e.addr, e.kind)
}

// specialRanges are the blocks netip's predicates do not name.
var specialRanges = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("100::/64"), "discard"},
}

// specialKind names the kind of a non-public address, or returns "" for
// an address on the public internet. Addresses that embed an IPv4 one
// (mapped, NAT64, 6to4) are judged by it; IPv4-compatible ones
// (::127.0.0.1), deprecated since 2006, are never public.
func specialKind(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		// embedded is the kind of the IPv4 address at b[at:], said to be
		// reached how, or "" for a public one.
		embedded := func(at int, how string) string {
			if k := specialKind(netip.AddrFrom4([4]byte(b[at : at+4]))); k != "" {
				return k + " (" + how + ")"
			}
			return ""
		}
		var k string
		switch {
		case netip.MustParsePrefix("::/96").Contains(a) && !a.IsLoopback() && !a.IsUnspecified():
			return cmp.Or(embedded(12, "IPv4-compatible"), "IPv4-compatible (deprecated)")
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a), netip.MustParsePrefix("64:ff9b:1::/48").Contains(a):
			k = embedded(12, "through NAT64")
		case netip.MustParsePrefix("2002::/16").Contains(a):
			k = embedded(2, "through 6to4")
		}
		if k != "" {
			return k
		}
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(a) {
			return r.kind
		}
	}
	return ""
}

// checkURL refuses u when its host is, or resolves to, a special address
// the user did not allow. A name that does not resolve passes: the
// connection then fails with its own message, and a name that resolves at
// connect time is checked by the dialer.
func (g *netGuard) checkURL(ctx context.Context, u *url.URL) error {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	if g.allowed(host, port) {
		return nil
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return checkAddr("", a)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := checkAddr(host, a); err != nil {
			return err
		}
	}
	return nil
}

func checkAddr(host string, a netip.Addr) error {
	if k := specialKind(a); k != "" {
		return &blockedError{host: host, addr: a.Unmap(), kind: k}
	}
	return nil
}

// transport is an HTTP transport whose connections only reach addresses
// checkAddr accepts, unless they go to a host the user allowed or to the
// environment's proxy.
func (g *netGuard) transport() *http.Transport {
	guarded := &net.Dialer{Timeout: 10 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("fetch_url: unexpected address %q", address)
		}
		return checkAddr("", ap.Addr())
	}}
	plain := &net.Dialer{Timeout: 10 * time.Second}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err == nil && (g.allowed(host, port) || g.proxy[strings.ToLower(addr)]) {
			return plain.DialContext(ctx, network, addr)
		}
		conn, err := guarded.DialContext(ctx, network, addr)
		if err != nil {
			if be := asBlocked(err); be != nil && host != "" && be.host == "" {
				be.host = host
			}
		}
		return conn, err
	}
	return t
}

// asBlocked returns the refusal inside err, if there is one.
func asBlocked(err error) *blockedError {
	var be *blockedError
	if errors.As(err, &be) {
		return be
	}
	return nil
}
