package index

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// goroot returns $(go env GOROOT)/src, skipping the benchmark without it.
func goroot(b *testing.B) string {
	b.Helper()
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		b.Skipf("no Go standard library sources at %s", src)
	}
	return src
}

// peakRSS reads the process's peak resident set (VmHWM) in bytes.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkIndexStdlib indexes the Go standard library from scratch,
// lexically, and reports files, chunks and the peak RSS of the process.
func BenchmarkIndexStdlib(b *testing.B) {
	src := goroot(b)
	var st Stats
	for b.Loop() {
		ix, err := OpenAt(context.Background(), src, filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		st, err = ix.Update(context.Background(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
	b.ReportMetric(float64(st.Indexed), "files")
	b.ReportMetric(float64(st.Chunks), "chunks")
	b.ReportMetric(peakRSS()/(1<<20), "peak-MiB")
	b.Logf("%+v", st)
}

// benchQueries are what a user might type: identifiers, phrases and
// questions.
var benchQueries = []string{
	"ServeHTTP",
	"parseConfigFile",
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
	"func(x",
	"error wrapping Unwrap",
	"context cancel propagation",
	"regexp compile onepass",
	"bufio scanner split lines",
	"DNS resolver fallback",
}
