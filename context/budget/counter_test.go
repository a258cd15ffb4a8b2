package budget

import (
	"fmt"
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

// forgetCounts empties the memo of pieces counted (countPiece).
func forgetCounts() {
	counted.Lock()
	clear(counted.n)
	counted.Unlock()
}

// TestCountRemembersPieces: a text counted again is counted from the
// memo, to the same number; the memo keeps copies of the long pieces only,
// and no more than memoPieces of them.
func TestCountRemembersPieces(t *testing.T) {
	c := newCounter(t)
	forgetCounts()
	src := strings.Repeat("// parseConfigFile reads the file at path.\nfunc parseConfigFile(path string) (*Config, error) {\n\treturn nil, nil\n}\n", 30)
	want := c.Count(src)
	counted.Lock()
	kept := len(counted.n)
	counted.Unlock()
	if kept == 0 || kept > len(src)/memoMin {
		t.Fatalf("the memo keeps %d pieces of a %d-byte text", kept, len(src))
	}
	if got := c.Count(src); got != want {
		t.Errorf("counted again: %d, first %d", got, want)
	}
	forgetCounts()
	if got := c.Count(src); got != want {
		t.Errorf("counted anew: %d, first %d", got, want)
	}
	c.Count("hello world")
	counted.Lock()
	_, short := counted.n["hello world"]
	counted.Unlock()
	if short {
		t.Error("the memo keeps a short text")
	}

	// A full memo makes room for the next piece.
	counted.Lock()
	for i := len(counted.n); i < memoPieces; i++ {
		counted.n[fmt.Sprint("piece ", i)] = i
	}
	counted.Unlock()
	next := strings.Repeat("a new piece ", memoMin/10)
	c.Count(next)
	counted.Lock()
	kept = len(counted.n)
	_, ok := counted.n[next]
	counted.Unlock()
	if kept > memoPieces || !ok {
		t.Errorf("a full memo keeps %d pieces (at most %d), the new one kept: %v", kept, memoPieces, ok)
	}
	forgetCounts()
}

// BenchmarkCount1MB counts about 1 MB of Go source from the standard
// library, with the memo of pieces emptied before each count: it measures
// the encoder.
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
		forgetCounts()
		c.Count(src)
	}
}

// BenchmarkCountAgain counts a system prompt's worth of text (40 KB)
// that was counted before, as a new agent does.
func BenchmarkCountAgain(b *testing.B) {
	c := newCounter(b)
	src := strings.Repeat("Use read_file to read a file; grep to search the workspace for a pattern.\n", 540)
	c.Count(src)
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
