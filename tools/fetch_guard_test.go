package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestSpecialKind(t *testing.T) {
	special := []string{
		"127.0.0.1", "127.8.9.10", "::1", "0.0.0.0", "::", "10.1.2.3", "172.16.0.1", "192.168.1.1",
		"169.254.169.254", "fe80::1", "fc00::1", "fd12::1", "100.64.0.1", "224.0.0.1", "ff02::1",
		"255.255.255.255", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::7f00:1", "2002:7f00:1::",
		"192.0.2.1", "198.18.0.1", "240.0.0.1", "2001:db8::1", "fec0::1", "::127.0.0.1", "::10.0.0.1", "::8.8.8.8",
	}
	for _, s := range special {
		if specialKind(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s passes as public", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "64:ff9b::808:808"} {
		if k := specialKind(netip.MustParseAddr(s)); k != "" {
			t.Errorf("%s refused as %s", s, k)
		}
	}
}

// TestFetchURLRefusesSpecialAddresses tries, as a hostile model would, to
// reach this machine and its networks through fetch_url: literal addresses
// in every spelling, a name that resolves to loopback, and a redirect from
// an allowed site to a loopback one.
func TestFetchURLRefusesSpecialAddresses(t *testing.T) {
	hits := 0
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		fmt.Fprint(w, "admin page")
	}))
	defer inside.Close()
	port := inside.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":")+1:]
	allowedSite := httptest.NewServer(http.RedirectHandler("http://localhost:"+port+"/admin", http.StatusFound))
	defer allowedSite.Close()
	allowed := strings.TrimPrefix(allowedSite.URL, "http://")

	for _, u := range []string{
		inside.URL + "/admin",
		"http://localhost:" + port + "/admin",
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://0.0.0.0:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
		allowedSite.URL + "/", // allowed itself, but redirects to loopback
	} {
		t.Run(u, func(t *testing.T) {
			r := call(t, NewFetchURL(newFixture(t), nil, allowed), fmt.Sprintf(`{"url":%q}`, u), 0)
			if !r.IsError || !strings.Contains(r.Output, "fetch_url refused") || !strings.Contains(r.Output, "fetch_allow") {
				t.Errorf("not refused: %+v", r)
			}
		})
	}
	if hits != 0 {
		t.Errorf("the loopback server was reached %d times", hits)
	}

	// The user's own config may allow the host.
	r := call(t, NewFetchURL(newFixture(t), nil, "localhost:"+port), fmt.Sprintf(`{"url":"http://localhost:%s/admin"}`, port), 0)
	if r.IsError || !strings.Contains(r.Output, "admin page") {
		t.Errorf("allowed host refused: %+v", r)
	}
}

// TestFetchURLChecksAtConnectTime stands in for DNS rebinding: the name
// resolves to a public address when checked, and to loopback when the
// connection is made. The dialer's check must still refuse it.
func TestFetchURLChecksAtConnectTime(t *testing.T) {
	hits := 0
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer inside.Close()
	port := inside.URL[strings.LastIndex(inside.URL, ":")+1:]
	tool := NewFetchURL(newFixture(t), nil).(*fetchURL)
	tool.guard.lookup = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	r := call(t, tool, fmt.Sprintf(`{"url":"http://localhost:%s/"}`, port), 0)
	if !r.IsError || !strings.Contains(r.Output, "loopback") || hits != 0 {
		t.Errorf("connect-time check let it through (hits %d): %+v", hits, r)
	}
}
