package tools

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const fixturePage = `<!doctype html>
<html><head><title>  The   Guide </title>
<script>stealCookies()</script><style>body { color: red }</style></head>
<body>
<nav><a href="/">Home</a> | <a href="/blog">Blog</a></nav>
<main>
<h1>Getting started</h1>
<p>Install with <code>go install</code>, then read <a href="/docs/intro">the intro</a>.</p>
<img src="/logo.png" alt="logo">
<ul><li>fast</li><li><b>small</b></li></ul>
<table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>
<pre><code>go run .</code></pre>
</main>
<aside>Related posts</aside>
<footer>© 2026 Example</footer>
</body></html>`

// site serves the pages the fetch_url tests need.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, fixturePage)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><p>cr\xe8me br\xfbl\xe9e</p></body></html>")
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><header>Site</header><article><p>The story.</p></article><div>Cookie banner</div></body></html>")
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "plain <b>notes</b>\nline two\n")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"tern","tags":["agent"]}`)
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no type: fetch_url sniffs
		fmt.Fprint(w, "just some words")
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0}, 300))
	})
	mux.HandleFunc("/blob", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(bytes.Repeat([]byte{0, 1, 2, 3}, 256))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := strings.Repeat("x", 99) + "\n"
		for range 3 << 20 / len(line) {
			if _, err := fmt.Fprint(w, line); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><body><h1>Not here</h1><p>No such page, sorry.</p></body></html>")
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database is down", http.StatusInternalServerError)
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/older", http.StatusFound) })
	mux.HandleFunc("/older", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/notes.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchURL(t *testing.T) {
	srv := site(t)
	tool := NewFetchURL(newFixture(t), &http.Client{Timeout: 10 * time.Second}, "127.0.0.1")
	if tool.Effect() != External {
		t.Fatalf("effect %v, want external", tool.Effect())
	}
	u := func(path string) string { return fmt.Sprintf(`{"url":%q}`, srv.URL+path) }
	runCases(t, tool, []toolCase{
		{name: "html to markdown", args: u("/page"), want: []string{
			"Title: The Guide\nURL: " + srv.URL + "/page\n\n# Getting started",
			"Install with `go install`, then read [the intro](" + srv.URL + "/docs/intro).",
			"- fast\n- **small**",
			"| Flag | Meaning |",
			"go run .",
		}, notWant: []string{"stealCookies", "color: red", "Home", "Related posts", "2026 Example", "logo"}},
		{name: "only article", args: u("/article"), want: []string{"The story."}, notWant: []string{"Site", "Cookie banner"}},
		{name: "charset", args: u("/latin1"), want: []string{"Title: Café", "crème brûlée"}},
		{name: "plain text as is", args: u("/notes.txt"), want: []string{"plain <b>notes</b>\nline two"}},
		{name: "json as is", args: u("/data.json"), want: []string{`{"name":"tern","tags":["agent"]}`}},
		{name: "untyped text is sniffed", args: u("/untyped"), want: []string{"just some words"}},
		{name: "image refused", args: u("/logo.png"), isError: true, want: []string{"is image/png (1.5 KiB), not text"}},
		{name: "binary refused", args: u("/blob"), isError: true, want: []string{"is binary data (1.0 KiB), not text"}},
		{name: "not found", args: u("/missing"), isError: true, want: []string{"HTTP 404 Not Found from " + srv.URL + "/missing", "No such page, sorry."}},
		{name: "server error", args: u("/broken"), isError: true, want: []string{"HTTP 500 Internal Server Error", "database is down"}},
		{name: "redirects followed", args: u("/old"), want: []string{"URL: " + srv.URL + "/notes.txt (redirected from " + srv.URL + "/old)", "line two"}},
		{name: "redirect loop", args: u("/loop"), isError: true, want: []string{"redirects more than 5 times"}},
		{name: "no url", args: `{}`, isError: true, want: []string{"url is required"}},
		{name: "file url", args: `{"url":"file:///etc/passwd"}`, isError: true, want: []string{"not file:", "read_file"}},
		{name: "ftp", args: `{"url":"ftp://example.com/x"}`, isError: true, want: []string{"http:// and https://"}},
	})
}

func TestFetchURLSizeCap(t *testing.T) {
	srv := site(t)
	ws := newFixture(t)
	r := call(t, NewFetchURL(ws, nil, "127.0.0.1"), fmt.Sprintf(`{"url":%q}`, srv.URL+"/huge"), 2000)
	for _, want := range []string{"over 2.0 MiB; only its first 2.0 MiB were read", "omitted"} {
		if r.IsError || !strings.Contains(r.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Output)
		}
	}
	if len(r.Output) > 2000 {
		t.Errorf("output is %d bytes, over the limit 2000", len(r.Output))
	}
	_, rel, ok := strings.Cut(r.Output, "full output: ")
	if !ok {
		t.Fatalf("no spill note:\n%s", r.Output)
	}
	rel, _, _ = strings.Cut(rel, ";")
	data, err := os.ReadFile(filepath.Join(ws.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(data); n < 2<<20 || n > 2<<20+1000 {
		t.Errorf("spilled %d bytes, want the 2 MiB read", n)
	}
}

func TestFetchURLOffline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	noDNS := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "docs.example.org", IsNotFound: true}}
	}}}
	tests := []struct {
		name   string
		client *http.Client
		url    string
		want   []string
	}{
		{"connection refused", nil, "http://" + closed + "/", []string{"network unavailable: cannot connect to " + closed, "tern works offline; fetch_url needs network access"}},
		{"no dns", noDNS, "https://docs.example.org/", []string{"network unavailable: cannot resolve docs.example.org (no such host)", "tern works offline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, NewFetchURL(newFixture(t), tt.client, "127.0.0.1"), fmt.Sprintf(`{"url":%q}`, tt.url), 0)
			if !r.IsError {
				t.Fatalf("want an error result, got %+v", r)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Output)
				}
			}
		})
	}
}

func TestFetchURLCancelled(t *testing.T) {
	srv := site(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	r := NewFetchURL(newFixture(t), nil, "127.0.0.1").Run(ctx, Input{Args: []byte(fmt.Sprintf(`{"url":%q}`, srv.URL+"/slow"))})
	if !r.IsError || !strings.Contains(r.Output, "cancelled") {
		t.Errorf("cancelled fetch: %+v", r)
	}
}

// TestFetchURLSpecGolden pins what the model reads of fetch_url
// (go test ./tools -run FetchURLSpecGolden -update).
func TestFetchURLSpecGolden(t *testing.T) {
	spec := NewFetchURL(newFixture(t), nil, "127.0.0.1").Spec()
	got := append(spec.WireJSON(), '\n')
	path := filepath.Join("testdata", "fetch_url.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
	if n := len(strings.Fields(spec.Description)); n > 45 {
		t.Errorf("description has %d words, want at most 45", n)
	}
}

func TestFetchURLTimeout(t *testing.T) {
	srv := site(t)
	r := call(t, NewFetchURL(newFixture(t), &http.Client{Timeout: 200 * time.Millisecond}, "127.0.0.1"), fmt.Sprintf(`{"url":%q}`, srv.URL+"/slow"), 0)
	if !r.IsError || !strings.Contains(r.Output, "timed out after 200ms; the site is slow or unreachable") {
		t.Errorf("slow site: %+v", r)
	}
}

func TestFetchURLBodyTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "first part\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	}))
	defer srv.Close()
	r := call(t, NewFetchURL(newFixture(t), &http.Client{Timeout: 200 * time.Millisecond}, "127.0.0.1"), fmt.Sprintf(`{"url":%q}`, srv.URL), 0)
	for _, want := range []string{"the download broke off after 11 B (timed out after 200ms)", "first part"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Output)
		}
	}
}
