package rag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/index/indextest"
)

// benchQueries are what a user might type: identifiers, phrases and
// questions about the standard library.
var benchQueries = []string{
	"ServeHTTP",
	"http server shutdown",
	"how does the scheduler steal work from other Ps",
	"gzip writer flush",
	"json decoder token",
	"read the zip central directory",
	"TLS handshake client hello",
	"url query escape",
	"mutex starvation mode",
	"garbage collector write barrier",
	"sort slice stable",
	"base64 encoding padding",
	"parse time layout",
	"error wrapping Unwrap",
	"context cancel propagation",
	"regexp compile onepass",
	"bufio scanner split lines",
	"DNS resolver fallback",
	"func(x",
	"parseConfigFile",
}

// benchDim is the vector length of nomic-embed-text.
const benchDim = 768

// stdlibIndex indexes the Go standard library sources into a temporary
// database, with 768-number vectors for every chunk when embed is set.
func stdlibIndex(b *testing.B, embed bool) *index.Index {
	b.Helper()
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		b.Skipf("no Go standard library sources at %s", src)
	}
	ix, err := index.OpenAt(context.Background(), src, filepath.Join(b.TempDir(), "index.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	opts := index.Options{}
	if embed {
		opts = index.Options{Embedder: &indextest.Embedder{Dim: benchDim}, Model: "hash", EmbedBatch: 256}
	}
	if _, err := ix.Update(context.Background(), opts); err != nil {
		b.Fatal(err)
	}
	return ix
}

// synthetic20k indexes a generated repository of 20,000 Python functions
// (and no other chunks) with 768-number vectors.
func synthetic20k(b *testing.B) *index.Index {
	b.Helper()
	root := b.TempDir()
	topics := []string{"cart", "order", "payment", "user", "session", "stock", "price", "report", "email", "config"}
	verbs := []string{"load", "save", "check", "compute", "render", "parse", "send", "update", "delete", "find"}
	for f := range 2000 {
		var src strings.Builder
		for i := range 10 {
			t, v := topics[(f+i)%len(topics)], verbs[(f*7+i)%len(verbs)]
			fmt.Fprintf(&src, "def %s_%s_%d_%d(x):\n    \"\"\"%s the %s number %d.\"\"\"\n    return x + %d\n\n\n", v, t, f, i, v, t, f*10+i, i)
		}
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", f%50))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("mod%d.py", f)), []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ix, err := index.OpenAt(context.Background(), root, filepath.Join(b.TempDir(), "index.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	emb := &indextest.Embedder{Dim: benchDim}
	if _, err := ix.Update(context.Background(), index.Options{Embedder: emb, Model: "hash", EmbedBatch: 256}); err != nil {
		b.Fatal(err)
	}
	st, _ := ix.Status(context.Background())
	if st.Chunks != 20000 || st.Embedded != st.Chunks {
		b.Fatalf("synthetic index: %+v", st)
	}
	return ix
}

// benchSearch runs the queries round robin and reports the median and
// 90th percentile latency, and the time of the first search (which loads
// the vectors into memory), in wall and CPU time.
func benchSearch(b *testing.B, r *Retriever, queries []string, wantLexical bool) {
	ctx := context.Background()
	start, firstCPU := time.Now(), cpuTime()
	res, err := r.Search(ctx, queries[0], Options{})
	if err != nil || res.Lexical != wantLexical {
		b.Fatalf("%v %+v", err, res)
	}
	first := time.Since(start)
	firstCPU = cpuTime() - firstCPU
	var lat []time.Duration
	i := 0
	cpu0 := cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Search(ctx, queries[i%len(queries)], Options{}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	// CPU time says what a search costs even when other processes
	// compete for the cores and stretch the wall-clock latency.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(firstCPU.Microseconds())/1000, "first-cpu-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkSearchLexical searches the standard library without vectors.
func BenchmarkSearchLexical(b *testing.B) {
	ix := stdlibIndex(b, false)
	benchSearch(b, New(ix, nil, ""), benchQueries, true)
}

// BenchmarkSearchHybrid20k searches 20,000 chunks with 768-number vectors.
func BenchmarkSearchHybrid20k(b *testing.B) {
	ix := synthetic20k(b)
	qs := []string{"compute the cart price", "send an email to the user", "parse config", "render report 4242", "check stock of order"}
	benchSearch(b, New(ix, &indextest.Embedder{Dim: benchDim}, "hash"), qs, false)
}

// BenchmarkSearchHybridStdlib searches the standard library with a
// 768-number vector for every chunk.
func BenchmarkSearchHybridStdlib(b *testing.B) {
	ix := stdlibIndex(b, true)
	benchSearch(b, New(ix, &indextest.Embedder{Dim: benchDim}, "hash"), benchQueries, false)
}

// BenchmarkRepoMapStdlib draws a 2,000-token map of the standard library.
func BenchmarkRepoMapStdlib(b *testing.B) {
	ix := stdlibIndex(b, false)
	for b.Loop() {
		if _, err := RepoMap(context.Background(), ix, 2000, indextest.Counter{}); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
