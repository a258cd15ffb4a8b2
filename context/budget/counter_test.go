package budget

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// oracle is tiktoken-go's cl100k_base encoder, which Count must match.
var oracle = sync.OnceValue(func() *tiktoken.Tiktoken {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe("cl100k_base.tiktoken")
	if err != nil {
		panic(err)
	}
	special := map[string]int{"<|endoftext|>": 100257}
	bpe, err := tiktoken.NewCoreBPE(ranks, special, cl100kPattern)
	if err != nil {
		panic(err)
	}
	return tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{
		Name: "cl100k_base", PatStr: cl100kPattern, MergeableRanks: ranks, SpecialTokens: special,
	}, map[string]any{})
})

// exact counts text whole with tiktoken-go.
func exact(text string) int { return len(oracle().EncodeOrdinary(text)) }

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

// TestCountMatchesTiktoken compares Count with tiktoken-go on pieces of the
// Go tree, every script and mangled bytes, below pieceBytes so that both
// see the same text whole.
func TestCountMatchesTiktoken(t *testing.T) {
	c := newCounter(t)
	var texts []string
	texts = append(texts, "hello world", "  leading", "trailing \n\n", "don't I'LL we've", "12345678901",
		"naïve café — ½ ☃ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 日本語のテキスト 한국어 Ελληνικά русский العربية", "\xff\xfe bad \xc3(",
		"\t\tif err != nil {\r\n\t\treturn err\r\n\t}", strings.Repeat("=", 300), strings.Repeat("ab", 500),
		"emoji 👩‍👩‍👧‍👦 🏳️‍🌈 flags 🇫🇷")
	for _, dir := range []string{"strings", "unicode/utf8", "encoding/json", "html/template", "regexp/syntax"} {
		entries, _ := os.ReadDir(filepath.Join(runtime.GOROOT(), "src", dir))
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", dir, e.Name()))
			if err != nil || e.IsDir() {
				continue
			}
			for len(data) > 0 {
				n := min(len(data), 1500)
				texts = append(texts, string(data[:n]))
				data = data[n:]
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
		var sb strings.Builder
		for range rng.IntN(100) {
			sb.WriteRune(rune(rng.IntN(0x2FFFF)))
		}
		texts = append(texts, sb.String())
	}
	if len(texts) < 200 {
		t.Fatalf("only %d texts", len(texts))
	}
	for _, text := range texts {
		if got, want := c.Count(text), exact(text); got != want {
			t.Fatalf("Count(%q) = %d, tiktoken-go %d", text, got, want)
		}
	}
}

// FuzzCountMatchesTiktoken checks Count against tiktoken-go on any text.
func FuzzCountMatchesTiktoken(f *testing.F) {
	c := newCounter(f)
	f.Add("hello world")
	f.Add("func main() {\n\tfmt.Println(\"hi\")\n}\n")
	f.Add("\xff日本\u00e9  \n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > pieceBytes {
			return
		}
		if got, want := c.Count(text), exact(text); got != want {
			t.Fatalf("Count(%q) = %d, tiktoken-go %d", text, got, want)
		}
	})
}

// BenchmarkFirstCount opens the table and counts a word, which the first
// Count of a process does (tiktoken-go's encoder took 150-250 ms to build
// on the same machine).
func BenchmarkFirstCount(b *testing.B) {
	for b.Loop() {
		r, err := openRanks(cl100kTable)
		if err != nil {
			b.Fatal(err)
		}
		if r.get([]byte("hello")) < 0 {
			b.Fatal("no hello")
		}
	}
}
