package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFetchURLRefusesOtherSpellings tries the loopback and private
// addresses in the spellings resolvers accept besides the dotted quad —
// decimal, octal, hexadecimal, shortened, IPv6 with a zone, IPv4-mapped
// and compatible forms, a trailing dot — and redirects to them, with
// every redirect status, from a site the user allowed.
func TestFetchURLRefusesOtherSpellings(t *testing.T) {
	var hits atomic.Int64
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "admin page")
	}))
	defer inside.Close()
	port := inside.URL[strings.LastIndex(inside.URL, ":")+1:]
	var target atomic.Value
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := map[string]int{"/301": 301, "/302": 302, "/303": 303, "/307": 307, "/308": 308}[r.URL.Path]
		if code == 0 {
			code = 302
		}
		http.Redirect(w, r, target.Load().(string), code)
	}))
	defer redirector.Close()
	allowed := strings.TrimPrefix(redirector.URL, "http://")

	spellings := []string{
		"http://2130706433:" + port + "/",
		"http://0177.0.0.1:" + port + "/",
		"http://0x7f.0.0.1:" + port + "/",
		"http://0x7f000001:" + port + "/",
		"http://127.1:" + port + "/",
		"http://127.0.0.1.:" + port + "/",
		"http://localhost.:" + port + "/",
		"http://LOCALHOST:" + port + "/",
		"http://[::ffff:7f00:1]:" + port + "/",
		"http://[::127.0.0.1]:" + port + "/",
		"http://[0:0:0:0:0:0:0:1]:" + port + "/",
		"http://[fe80::1%25lo]:" + port + "/",
		"http://[::]:" + port + "/",
		"http://0:" + port + "/",
		"http://user@127.0.0.1:" + port + "/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://100.100.100.200/latest/meta-data/",
		"http://192.168.0.1/",
		"http://172.31.255.255/",
	}
	for _, u := range spellings {
		t.Run(u, func(t *testing.T) {
			r := call(t, NewFetchURL(newFixture(t), nil), fmt.Sprintf(`{"url":%q}`, u), 0)
			if !r.IsError || strings.Contains(r.Output, "admin page") {
				t.Errorf("not refused: %+v", r)
			}
			// Refused for the address it names (or a name that does
			// not resolve), never by a connection that happened to fail.
			if !strings.Contains(r.Output, " address") && !strings.Contains(r.Output, "cannot resolve") {
				t.Errorf("refused, but not for its address: %s", r.Output)
			}
		})
	}
	for _, code := range []string{"301", "302", "303", "307", "308"} {
		for _, to := range []string{inside.URL + "/", "http://2130706433:" + port + "/", "http://[::1]:" + port + "/", "http://10.0.0.1/"} {
			target.Store(to)
			r := call(t, NewFetchURL(newFixture(t), nil, allowed), fmt.Sprintf(`{"url":%q}`, redirector.URL+"/"+code), 0)
			if !r.IsError || strings.Contains(r.Output, "admin page") {
				t.Errorf("redirect %s to %s not refused: %+v", code, to, r)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
}
