package mcp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestStreamableHTTPServerWithHeaders(t *testing.T) {
	srv := newFixtureServer(func() {})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var sawAuth string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			sawAuth = r.Header.Get("Authorization")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()

	m, err := NewManager(Options{
		Workspace: newWorkspace(t),
		Environ:   []string{"FX_TOKEN=s3cret"},
		Servers: []ServerConfig{
			{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${FX_TOKEN}"}, Timeout: 5 * time.Second},
			{Name: "noauth", URL: ts.URL, Timeout: 5 * time.Second},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if r := run(t, m, "web_echo", `{"text":"over http"}`, 0); r.IsError || r.Output != "over http" {
		t.Fatalf("echo over HTTP: %+v (server saw Authorization %q)", r, sawAuth)
	}
	st := m.Status(t.Context(), nil)
	if !st[0].Running || len(st[0].Tools) != fixtureToolCount {
		t.Errorf("web status: %+v", st[0])
	}
	if st[1].Running || st[1].Err == nil || !strings.Contains(st[1].Fix, "Authorization header in [mcp.servers.noauth.headers]") {
		t.Errorf("noauth status: err %v, fix %q", st[1].Err, st[1].Fix)
	}
}

func TestUnreachableHTTPServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	m, err := NewManager(Options{Workspace: newWorkspace(t), Servers: []ServerConfig{{Name: "gone", URL: "http://" + addr + "/mcp", Timeout: 5 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := m.Status(t.Context(), nil)[0]
	if st.Running || st.Err == nil || !strings.Contains(st.Err.Error(), "cannot reach http://"+addr) || !strings.Contains(st.Fix, "start the server, or fix url") {
		t.Errorf("status = running %v, err %v, fix %q", st.Running, st.Err, st.Fix)
	}
}
