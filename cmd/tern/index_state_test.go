package main

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/ternhq/tern/cmd/tern/internal/indexview"
)

// TestIndexMadeByAnOlderTern: an index from before the current chunk
// format is read again in full by the next tern index, which says so, and
// keeps every vector; doctor says what to run until then.
func TestIndexMadeByAnOlderTern(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.mustTern("index")
	markOlderTern(t, f)
	if out, _ := f.mustTern("doctor"); !strings.Contains(out, "an older tern made the index: `tern index` reads its files again") {
		t.Errorf("doctor:\n%s", out)
	}
	out, _ := f.mustTern("index")
	if !strings.Contains(out, "(made by an older tern: every file read again)") || !strings.Contains(out, "6 indexed") ||
		!regexp.MustCompile(`vectors  (\d+) of (\d+) chunks embedded with nomic-embed-text \(task prefixes\)\n`).MatchString(out) {
		t.Errorf("index after an upgrade (every file read, no new vector):\n%s", out)
	}
	if out, _ := f.mustTern("index"); !strings.Contains(out, "is up to date") {
		t.Errorf("the index after that:\n%s", out)
	}
}

// TestSearchAfterManyUpdates: an index that tern index updated many
// times (a file edited again and again, one deleted and put back, then
// every file read again after a format upgrade) gives tern search the
// same hits, scores included, as a fresh index of the same files.
func TestSearchAfterManyUpdates(t *testing.T) {
	t.Parallel()
	fresh := newCodeFixture(t)
	fresh.mustTern("index", "--no-embed")
	f := newCodeFixture(t)
	f.mustTern("index", "--no-embed")
	total := filepath.Join(f.dir, "calc", "total.go")
	parse := filepath.Join(f.dir, "config", "parse.go")
	originals := map[string][]byte{}
	for _, path := range []string{total, parse} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		originals[path] = data
	}
	for i := range 6 {
		edit := fmt.Appendf(nil, "package calc\n\n// Total adds up bill %d.\nfunc Total(xs []int) int { return %d }\n", i, i)
		if err := os.WriteFile(total, edit, 0o644); err != nil {
			t.Fatal(err)
		}
		f.mustTern("index", "--no-embed")
	}
	if err := os.Remove(parse); err != nil {
		t.Fatal(err)
	}
	f.mustTern("index", "--no-embed")
	for path, data := range originals {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.mustTern("index", "--no-embed")
	markOlderTern(t, f)
	if out, _ := f.mustTern("index", "--no-embed"); !strings.Contains(out, "every file read again") {
		t.Fatalf("the last update did not read every file again:\n%s", out)
	}

	for _, q := range []string{"bill", "Total", "parse the config file", "settings key value", "shop numbers"} {
		args := []string{"search", "--json", "--no-embed", "-k", "20", q}
		want, _ := fresh.mustTern(args...)
		got, _ := f.mustTern(args...)
		if a, b := rankedHits(t, want), rankedHits(t, got); !slices.Equal(a, b) {
			t.Errorf("tern search %q after many updates:\n%s\na fresh index:\n%s", q, strings.Join(b, "\n"), strings.Join(a, "\n"))
		}
	}
}

// rankedHits lists the hits of tern search --json as path, lines and
// score, best first; hits of equal score, whose order follows the row
// ids, in path order.
func rankedHits(t *testing.T, out string) []string {
	t.Helper()
	list := hits(t, out)
	slices.SortStableFunc(list, func(a, b indexview.JSONHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.StartLine, b.StartLine))
	})
	var lines []string
	for _, h := range list {
		lines = append(lines, fmt.Sprintf("%s:%d-%d %s %.6f", h.Path, h.StartLine, h.EndLine, h.Symbol, h.Score))
	}
	return lines
}

// markOlderTern makes the fixture's index look made by a tern of an older
// chunk format: the next tern index reads every file again.
func markOlderTern(t *testing.T, f *fixture) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(f.dir, ".tern", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`DELETE FROM meta WHERE key = 'chunk_format'`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
}

func TestIndexDamaged(t *testing.T) {
	t.Parallel()
	foreign := func(t *testing.T, path string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('mine')`); err != nil {
			t.Fatal(err)
		}
	}
	garbage := func(t *testing.T, path string) {
		if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 400)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, spoil := range map[string]func(*testing.T, string){"foreign": foreign, "garbage": garbage} {
		t.Run(name, func(t *testing.T) {
			f := newCodeFixture(t)
			if err := os.MkdirAll(filepath.Join(f.dir, ".tern"), 0o755); err != nil {
				t.Fatal(err)
			}
			spoil(t, filepath.Join(f.dir, ".tern", "index.db"))
			for _, args := range [][]string{{"index"}, {"search", "bill"}} {
				code, _, errOut := f.tern(t.Context(), args...)
				if code != 1 || !strings.Contains(errOut, "the index .tern/index.db is damaged or is not a tern index: run `tern index --rebuild`") ||
					strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
					t.Errorf("tern %s: exit %d, want 1 and one clear line:\n%s", args[0], code, errOut)
				}
			}
			_, out, _ := f.tern(t.Context(), "doctor")
			if !strings.Contains(out, "Index       ✗ the index .tern/index.db is damaged or is not a tern index: run `tern index --rebuild` to delete it and build it again\n") {
				t.Errorf("doctor:\n%s", out)
			}
			out, errOut := f.mustTern("index", "--rebuild")
			if !strings.Contains(errOut, "deleted .tern/index.db") || !strings.Contains(out, "6 indexed") {
				t.Errorf("rebuild: %s\n%s", errOut, out)
			}
		})
	}
}

func TestSearchNeedsAnIndex(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	code, _, errOut := f.tern(t.Context(), "search", "bill")
	if code != 1 || !strings.Contains(errOut, "this repository has no index yet: run `tern index` first") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".tern", "index.db")); err == nil {
		t.Error("tern search created an index")
	}
	if code, _, errOut := f.tern(t.Context(), "search", "-k", "0", "bill"); code != 2 || !strings.Contains(errOut, "-k must be at least 1") {
		t.Errorf("-k 0: exit %d: %s", code, errOut)
	}
}

// TestIndexInterrupted stops an update the way Ctrl+C does, while it
// embeds, and checks that the index it leaves is whole and that the next
// run completes it.
func TestIndexInterrupted(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	target, err := url.Parse(f.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/embed" {
			// The user presses Ctrl+C while the first batch is embedded.
			first := false
			once.Do(func() { first = true; cancel() })
			if first {
				// The server notices the client hang up once the body is read.
				_, _ = io.Copy(io.Discard, r.Body)
				<-r.Context().Done()
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	f.env["OLLAMA_HOST"] = front.URL

	code, out, errOut := f.tern(ctx, "index")
	if code != exitCanceled || !strings.Contains(errOut, "interrupted; the index is consistent: run tern index again to finish") {
		t.Fatalf("exit %d, want 130:\n%s%s", code, out, errOut)
	}
	st := f.status()
	if st.Files != 6 || st.Chunks == 0 || st.Embedded == st.Chunks {
		t.Errorf("after the interruption the index holds %+v; want every file chunked, not all embedded", st)
	}
	out, _ = f.mustTern("index")
	if !strings.Contains(out, "0 indexed · 6 unchanged") || !strings.Contains(out, "new") {
		t.Errorf("the next run should only embed what is missing:\n%s", out)
	}
	if st := f.status(); st.Embedded != st.Chunks {
		t.Errorf("after the second run: %+v", st)
	}
}

func TestDoctorIndexLine(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	out, _ := f.mustTern("doctor")
	if !strings.Contains(out, "Index       · not built; run `tern index`") {
		t.Errorf("doctor without an index:\n%s", out)
	}
	f.mustTern("index")
	out, _ = f.mustTern("doctor")
	if !regexp.MustCompile(`Index       ✓ \.tern/index\.db: 6 files, \d+ chunks, \d+ embedded with nomic-embed-text \(task prefixes\); updated just now`).MatchString(out) {
		t.Errorf("doctor with an index:\n%s", out)
	}
	if err := os.WriteFile(filepath.Join(f.dir, ".tern.toml"), []byte("embed_model = \"all-minilm\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = f.mustTern("doctor")
	if !strings.Contains(out, "the index was embedded with nomic-embed-text (task prefixes), but embed_model is all-minilm: `tern index` re-embeds it") {
		t.Errorf("doctor with another embed_model:\n%s", out)
	}
}

// TestTwoTernIndexAtOnce runs two `tern index` of one repository at the
// same time: the first is held while it embeds, inside its update, and the
// second must wait for it (saying so) rather than index alongside it. Each
// chunk is then stored once, both runs succeed, and a later run finds
// nothing to do.
func TestTwoTernIndexAtOnce(t *testing.T) {
	t.Parallel()
	ref := newCodeFixture(t)
	ref.mustTern("index")
	want := ref.status().Chunks

	f := newCodeFixture(t)
	// A proxy in front of the fake server holds every embedding request
	// until the second run has said it waits.
	target, err := url.Parse(f.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	embedding, release := make(chan struct{}, 1), make(chan struct{})
	proxy := httputil.NewSingleHostReverseProxy(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/embed" {
			select {
			case embedding <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	defer gate.Close()
	f.env["OLLAMA_HOST"] = gate.URL
	letGo := sync.OnceFunc(func() { close(release) })
	defer letGo()

	run := func(stderr *syncBuffer) int {
		var out bytes.Buffer
		return Main(t.Context(), []string{"index", "--dir", f.dir}, strings.NewReader(""), &out, stderr, func(k string) string { return f.env[k] })
	}
	var wg sync.WaitGroup
	var errs [2]syncBuffer
	var codes [2]int
	wg.Go(func() { codes[0] = run(&errs[0]) })
	select {
	case <-embedding:
	case <-time.After(patience):
		letGo()
		t.Fatalf("the first run never embedded:\n%s", errs[0].String())
	}
	wg.Go(func() { codes[1] = run(&errs[1]) })
	deadline := time.Now().Add(patience)
	for !strings.Contains(errs[1].String(), "waiting for it to finish") {
		if time.Now().After(deadline) || codes[1] != 0 {
			t.Errorf("the second run did not wait for the first:\n%s", errs[1].String())
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	letGo()
	wg.Wait()
	for i := range 2 {
		if codes[i] != 0 {
			t.Errorf("run %d: exit %d\n%s", i, codes[i], errs[i].String())
		}
	}
	if st := f.status(); st.Chunks != want || st.Embedded != want {
		t.Errorf("after two runs at once: %d chunks, %d embedded; one run stores %d", st.Chunks, st.Embedded, want)
	}
	if out, _ := f.mustTern("index"); !strings.Contains(out, "is up to date") || !strings.Contains(out, "0 indexed") {
		t.Errorf("a third run:\n%s", out)
	}
}
