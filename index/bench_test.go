package index

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	benchIndex(b, goroot(b))
}

// BenchmarkIndexTree indexes the tree named by $TERN_BENCH_TREE (a large
// one, such as the Go module cache) the same way, to check that the cost
// grows linearly with the size and that memory stays bounded. Run it alone:
// peak-MiB is the whole process's.
func BenchmarkIndexTree(b *testing.B) {
	root := os.Getenv("TERN_BENCH_TREE")
	if root == "" {
		b.Skip("set TERN_BENCH_TREE to a directory to index")
	}
	benchIndex(b, root)
}

func benchIndex(b *testing.B, src string) {
	var st Stats
	var db string
	var bytes int64
	cpu0 := cpuTime()
	for b.Loop() {
		db = filepath.Join(b.TempDir(), "index.db")
		ix, err := OpenAt(context.Background(), src, db)
		if err != nil {
			b.Fatal(err)
		}
		st, err = ix.Update(context.Background(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.db.QueryRow(`SELECT coalesce(sum(size), 0) FROM files WHERE skip = ''`).Scan(&bytes); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
	cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(float64(st.Indexed), "files")
	b.ReportMetric(float64(bytes)/1e6, "MB")
	b.ReportMetric(float64(st.Chunks), "chunks")
	b.ReportMetric(cpu, "cpu-s/op")
	b.ReportMetric(cpu/(float64(bytes)/1e8), "cpu-s/100MB")
	b.ReportMetric(peakRSS()/(1<<20), "peak-MiB")
	if fi, err := os.Stat(db); err == nil {
		b.ReportMetric(float64(fi.Size())/(1<<20), "db-MiB")
	}
	b.Logf("%+v", st)
}

// cpuTime is the CPU time the process has used, user and system: what an
// operation costs even when other processes compete for the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stdlibCopy copies the standard library sources and indexes the copy
// (lexically), so that benchmarks can change files.
func stdlibCopy(b *testing.B) (*Index, string) {
	b.Helper()
	src := goroot(b)
	dir := b.TempDir()
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	root := filepath.Join(dir, "src")
	ix, err := OpenAt(context.Background(), root, filepath.Join(dir, "index.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(context.Background(), Options{}); err != nil {
		b.Fatal(err)
	}
	return ix, root
}

// BenchmarkReindexNoChange updates an up-to-date index of the standard
// library.
func BenchmarkReindexNoChange(b *testing.B) {
	ix, _ := stdlibCopy(b)
	cpu0 := cpuTime()
	for b.Loop() {
		st, err := ix.Update(context.Background(), Options{})
		if err != nil || st.Indexed != 0 {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkReindexOneFile edits one file of the standard library and
// updates the index.
func BenchmarkReindexOneFile(b *testing.B) {
	ix, root := stdlibCopy(b)
	path := filepath.Join(root, "net", "http", "server.go")
	orig, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		i++
		edited := fmt.Appendf(append([]byte{}, orig...), "\n// edit %d\n", i)
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			b.Fatal(err)
		}
		st, err := ix.Update(context.Background(), Options{})
		if err != nil || st.Indexed != 1 {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
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
