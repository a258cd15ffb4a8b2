package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
)

// runMainEnv makes the test binary run tern's main instead of the tests, so
// a benchmark can time a whole process: exec, package init and all.
const runMainEnv = "TERN_TEST_RUN_MAIN"

// BenchmarkAskStartup times `tern ask` as a process, from exec to the first
// chat request reaching a fake Ollama, less the time the server spent on
// the requests before it (tags, show, ps): tern's own start-up time. It
// also reports the CPU the whole one-turn run used. The target is
// under 30 ms to the first request; on a busy machine the CPU time to it
// (cpu-ms-to-request) is the steadier figure.
func BenchmarkAskStartup(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for name, body := range map[string]string{
		"README.md": "# demo\nA demo repository.\n",
		"main.go":   "package main\n\nfunc main() { println(\"hi\") }\n",
		"AGENTS.md": "Run go test before committing.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	srv := ollamatest.New(b, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	target, _ := url.Parse(srv.URL())
	fwd := httputil.NewSingleHostReverseProxy(target)

	var mu sync.Mutex
	var served time.Duration // server time before the first chat
	var chatAt time.Time
	var pid int             // the tern process
	var cpuAt time.Duration // its CPU time when the chat arrived
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		mu.Lock()
		first := r.URL.Path == "/api/chat" && chatAt.IsZero()
		if first {
			chatAt = t0
			cpuAt = processCPU(pid)
		}
		counting := chatAt.IsZero()
		mu.Unlock()
		fwd.ServeHTTP(w, r)
		if os.Getenv("TERN_BENCH_TRACE") != "" {
			b.Logf("%s %s at %v took %v", r.Method, r.URL.Path, t0.Format("05.000"), time.Since(t0))
		}
		if counting {
			mu.Lock()
			served += time.Since(t0)
			mu.Unlock()
		}
	}))
	defer proxy.Close()

	env := processEnv(b, proxy.URL)
	var startup, cpuStart, cpu time.Duration
	b.ResetTimer()
	for range b.N {
		srv.Script(ollamatest.Reply{Content: "Hello."})
		mu.Lock()
		served, chatAt = 0, time.Time{}
		mu.Unlock()
		cmd := exec.Command(self, "ask", "--dir", dir, "hello")
		cmd.Env = env
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		mu.Lock()
		start := time.Now()
		err := cmd.Start()
		if err == nil {
			pid = cmd.Process.Pid
		}
		mu.Unlock()
		if err == nil {
			err = cmd.Wait()
		}
		if err != nil {
			b.Fatalf("tern ask: %v\n%s", err, out.String())
		}
		if os.Getenv("TERN_BENCH_TRACE") != "" {
			b.Logf("started %v\n%s", start.Format("05.000"), out.String())
		}
		mu.Lock()
		if chatAt.IsZero() {
			b.Fatalf("no chat request; output:\n%s", out.String())
		}
		startup += chatAt.Sub(start) - served
		cpuStart += cpuAt
		mu.Unlock()
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(startup.Microseconds())/1e3/float64(b.N), "ms-to-request")
	if cpuStart > 0 {
		b.ReportMetric(float64(cpuStart.Microseconds())/1e3/float64(b.N), "cpu-ms-to-request")
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/run")
}

// processEnv is the environment of a tern process a benchmark starts: the
// test binary runs tern's main against the server at host, with a home
// of its own.
func processEnv(b *testing.B, host string, more ...string) []string {
	home := b.TempDir()
	env := append(os.Environ(), runMainEnv+"=1", "OLLAMA_HOST="+host,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_STATE_HOME="+filepath.Join(home, "state"))
	return append(env, more...)
}

// processCPU is the CPU time pid's threads have used so far, from Linux's
// schedstat (nanoseconds; /proc/PID/stat counts in 10 ms ticks); 0
// elsewhere.
func processCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(data))
		if len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}
