package budget

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ternhq/tern/models"
)

// exact counts text whole, with no cut into pieces.
func exact(text string) int {
	enc, err := encoder()
	if err != nil {
		panic(err)
	}
	return len(enc.EncodeOrdinary(text))
}

func newCounter(tb testing.TB) *Counter {
	tb.Helper()
	c, err := NewCounter()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestCount(t *testing.T) {
	c := newCounter(t)
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // plain text, never the special token
		{"func main() {}", 4},
	}
	for _, tt := range tests {
		if got := c.Count(tt.text); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestCountLongRunsStayCloseToExact(t *testing.T) {
	c := newCounter(t)
	// Pieces change the count only at piece borders; a long text must stay
	// within a fraction of a percent of encoding it whole.
	src := strings.Repeat("// parseConfigFile reads the file at path.\nfunc parseConfigFile(path string) (*Config, error) {\n\treturn nil, nil\n}\n", 400)
	exact := exact(src)
	got := c.Count(src)
	if diff := float64(got-exact) / float64(exact); diff < -0.005 || diff > 0.005 {
		t.Errorf("Count = %d, exact %d (%.2f%% off)", got, exact, 100*diff)
	}
	// A run with no split point must not take quadratic time; this would
	// take tens of seconds whole.
	if n := c.Count(strings.Repeat("a", 200_000)); n < 200_000/16 {
		t.Errorf("Count(200k 'a') = %d, implausibly low", n)
	}
}

func TestCountConcurrent(t *testing.T) {
	c := newCounter(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := c.Count("hello world"); got != 2 {
				t.Errorf("Count = %d", got)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkCount1MB counts about 1 MB of Go source from the standard library.
func BenchmarkCount1MB(b *testing.B) {
	c := newCounter(b)
	var sb strings.Builder
	dir := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Skip("no GOROOT sources:", err)
	}
	for _, e := range entries {
		if sb.Len() >= 1<<20 {
			break
		}
		if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && strings.HasSuffix(e.Name(), ".go") {
			sb.Write(data)
		}
	}
	src := sb.String()[:min(sb.Len(), 1<<20)]
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		c.Count(src)
	}
}

// BenchmarkFirstCount builds tiktoken-go's encoder and counts a word,
// which the first Count of a process does.
func BenchmarkFirstCount(b *testing.B) {
	for b.Loop() {
		enc, err := newEncoder()
		if err != nil {
			b.Fatal(err)
		}
		if len(enc.EncodeOrdinary("hello")) != 1 {
			b.Fatal("hello is not one token")
		}
	}
}

// checkBound fails when Bound is not an upper bound of the exact count.
func checkBound(t *testing.T, c *Counter, text string) {
	t.Helper()
	if n, b := c.Count(text), Bound(text); n > b {
		t.Errorf("Count(%q) = %d > Bound %d", text, n, b)
	}
}

func TestBound(t *testing.T) {
	c := newCounter(t)
	if Bound("") != 0 || Bound("hello") != 5 || Bound("h\xffi") != 5 {
		t.Errorf("Bound: %d %d %d", Bound(""), Bound("hello"), Bound("h\xffi"))
	}
	texts := []string{
		"", "hello world", "<|endoftext|>", "\xff", "\xff\xfe\xfd", "\xe2\x82", "\xe2\x82\xac", "a\x80\x80\x80b",
		"日本語のテキスト", "😀😀😀", strings.Repeat("\x80", 5000), strings.Repeat("é", 3000),
		strings.Repeat("a", 5000) + "\xe2\x82\xac" + strings.Repeat("\x80", 3000),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, r.IntN(3000))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		texts = append(texts, string(b))
	}
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "fmt", "print.go"))
	if err == nil {
		texts = append(texts, string(src))
	}
	for _, text := range texts {
		checkBound(t, c, text)
	}
	var m models.Message
	m.Content = "\xff\xfe"
	m.ToolCalls = []models.ToolCall{{Name: "read_file", Arguments: []byte(`{"path":"\u00e9"}`)}}
	if n, b := c.MessageTokens(m), c.MessageBound(m); n > b {
		t.Errorf("MessageTokens = %d > MessageBound %d", n, b)
	}
}

func FuzzBound(f *testing.F) {
	c := newCounter(f)
	for _, s := range []string{"hello", "\xff", "\xe2\x82", "日本語", "  \n\n\t", "<|endoftext|>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkBound(t, c, text) })
}

func TestReady(t *testing.T) {
	c := newCounter(t)
	c.Count("x")
	if !c.Ready() {
		t.Error("Ready is false after a count")
	}
}
