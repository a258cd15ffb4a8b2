package rag

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/index/indextest"
)

// shop copies testdata/shop into a temporary directory and indexes it,
// with vectors from emb when it is not nil.
func shop(t *testing.T, emb index.Embedder, model string) (*index.Index, string) {
	t.Helper()
	root := t.TempDir()
	err := filepath.WalkDir("testdata/shop", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/shop", path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(t.Context(), index.Options{Embedder: emb, Model: model}); err != nil {
		t.Fatal(err)
	}
	return ix, root
}

// qualityQueries are questions a user might ask about the shop, with the
// symbol that answers each.
var qualityQueries = []struct{ query, symbol string }{
	{"how is the shopping cart total computed", "Cart.Total"},
	{"apply a discount code to the cart", "Cart.ApplyDiscount"},
	{"hash user passwords before storing them", "HashPassword"},
	{"check the password on login", "CheckPassword"},
	{"send the order confirmation email", "send_confirmation"},
	{"retry failed payments with backoff", "chargeWithRetry"},
	{"parse the configuration file", "LoadConfig"},
	{"limit requests per client IP", "RateLimiter.Allow"},
	{"where are the HTTP routes registered", "registerRoutes"},
	{"show a price with its currency", "formatPrice"},
	{"reserve stock when an order is placed", "Inventory.Reserve"},
	{"export sales as CSV", "SalesReport.export_sales_csv"},
	{"deploy to production", "deploy"},
	{"cancel an order and refund the payment", "CancelOrder"},
	{"validate an email address", "validEmail"},
	{"paginate the product listing", "Store.ListProducts"},
	{"has the session token expired", "Session.Expired"},
	{"shipping cost by weight", "ShippingCost"},
	{"run database migrations", "Migrator.migrate"},
	{"search products by name", "Store.SearchProducts"},
}

func TestRetrievalQuality(t *testing.T) {
	modes := []struct {
		name string
		emb  *indextest.Embedder
	}{{"lexical", nil}, {"hybrid", &indextest.Embedder{}}}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			var emb index.Embedder
			var remb Embedder
			if m.emb != nil {
				emb, remb = m.emb, m.emb
			}
			ix, _ := shop(t, emb, "hash")
			r := New(ix, remb, "hash")
			for _, q := range qualityQueries {
				res, err := r.Search(t.Context(), q.query, Options{K: 5})
				if err != nil {
					t.Fatal(err)
				}
				if res.Lexical != (m.emb == nil) {
					t.Errorf("%q: lexical = %v (%s)", q.query, res.Lexical, res.Why)
				}
				var got []string
				found := false
				for _, h := range res.Hits {
					got = append(got, h.Symbol)
					found = found || h.Symbol == q.symbol
				}
				if !found {
					t.Errorf("%q: %s not in the top 5: %q", q.query, q.symbol, got)
				}
			}
		})
	}
}

func TestSearchSaysWhyItIsLexical(t *testing.T) {
	emb := &indextest.Embedder{}
	tests := []struct {
		name     string
		indexEmb index.Embedder
		emb      Embedder
		model    string
		why      string
	}{
		{"no embedder", nil, nil, "", "no embedding model"},
		{"index without vectors", nil, emb, "hash", "no embeddings yet"},
		{"other model", emb, emb, "other", "embedded with hash, not other"},
		{"query embedding fails", emb, &indextest.Embedder{Fail: func(string, []string) error { return errors.New("ollama down") }}, "hash", "ollama down"},
		{"hybrid", emb, emb, "hash", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, _ := shop(t, tt.indexEmb, "hash")
			res, err := New(ix, tt.emb, tt.model).Search(t.Context(), "cart total", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Lexical != (tt.why != "") || !strings.Contains(res.Why, tt.why) {
				t.Errorf("lexical %v, why %q; want %q", res.Lexical, res.Why, tt.why)
			}
			// The hash embedder prefers handleCart, whose short text has
			// both words; the lexical side keeps Cart.Total near the top.
			if len(res.Hits) < 2 || res.Hits[0].Symbol != "Cart.Total" && res.Hits[1].Symbol != "Cart.Total" {
				t.Errorf("hits %v", res.Hits)
			}
		})
	}
}

// TestQueryEmbeddedOnlyForAnIndexWithVectors: the query is embedded while
// the vectors load, but never for an index that holds none, nor when the
// index was embedded with another model.
func TestQueryEmbeddedOnlyForAnIndexWithVectors(t *testing.T) {
	for _, tt := range []struct {
		name      string
		indexEmb  index.Embedder
		model     string
		wantCalls int
	}{
		{"no vectors", nil, "hash", 0},
		{"other model", &indextest.Embedder{}, "other", 0},
		{"vectors", &indextest.Embedder{}, "hash", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix, _ := shop(t, tt.indexEmb, "hash")
			emb := &indextest.Embedder{}
			for range 2 { // the first search loads the vectors, the second reuses them
				if _, err := New(ix, emb, tt.model).Search(t.Context(), "cart total", Options{}); err != nil {
					t.Fatal(err)
				}
			}
			if calls, _ := emb.Stats(); calls != 2*tt.wantCalls {
				t.Errorf("%d query embeddings for 2 searches, want %d", calls, 2*tt.wantCalls)
			}
		})
	}
}

func TestSearchFollowsIndexUpdates(t *testing.T) {
	emb := &indextest.Embedder{}
	ix, root := shop(t, emb, "hash")
	r := New(ix, emb, "hash")
	search := func(q string) []Hit {
		t.Helper()
		res, err := r.Search(t.Context(), q, Options{K: 3})
		if err != nil || res.Lexical {
			t.Fatalf("%v %+v", err, res)
		}
		return res.Hits
	}
	if hits := search("gift wrapping"); len(hits) > 0 && hits[0].Symbol == "WrapGift" {
		t.Fatal("WrapGift found before it exists")
	}
	os.WriteFile(filepath.Join(root, "store", "gift.go"), []byte("package store\n\n// WrapGift adds gift wrapping to an order.\nfunc WrapGift(o *Order) {}\n"), 0o644)
	os.Remove(filepath.Join(root, "store", "orders.go"))
	if _, err := ix.Update(t.Context(), index.Options{Embedder: emb, Model: "hash"}); err != nil {
		t.Fatal(err)
	}
	hits := search("gift wrapping")
	if len(hits) == 0 || hits[0].Symbol != "WrapGift" || hits[0].VectorRank == 0 {
		t.Errorf("new chunk not found by vector: %+v", hits)
	}
	for _, h := range search("shipping cost by weight") {
		if h.Path == "store/orders.go" {
			t.Errorf("deleted file still found: %+v", h)
		}
	}
}

func TestSearchFilters(t *testing.T) {
	emb := &indextest.Embedder{}
	ix, _ := shop(t, emb, "hash")
	r := New(ix, emb, "hash")
	tests := []struct {
		opts Options
		ok   func(Hit) bool
	}{
		{Options{Lang: "python"}, func(h Hit) bool { return h.Lang == "python" }},
		{Options{PathPrefix: "store/"}, func(h Hit) bool { return strings.HasPrefix(h.Path, "store/") }},
		{Options{Lang: "go", PathPrefix: "./auth"}, func(h Hit) bool { return h.Lang == "go" && strings.HasPrefix(h.Path, "auth/") }},
	}
	for _, tt := range tests {
		res, err := r.Search(t.Context(), "order total cost of products", tt.opts)
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("%+v: %v %v", tt.opts, res, err)
		}
		for _, h := range res.Hits {
			if !tt.ok(h) {
				t.Errorf("%+v: hit %s (%s) escapes the filter", tt.opts, h.Path, h.Lang)
			}
		}
	}
}

func TestFuseRanksAgreementFirstAndDeduplicates(t *testing.T) {
	c := func(id int64, path string, start, end int, sym string, score float64) index.Chunk {
		return index.Chunk{ID: id, Path: path, StartLine: start, EndLine: end, Kind: "function", Symbol: sym, Text: "x", Score: score}
	}
	lex := []index.Chunk{c(1, "a.go", 1, 10, "Alpha", 1), c(2, "b.go", 1, 5, "Beta", 0.9), c(3, "a.go", 11, 20, "Alpha", 0.5)}
	vec := []index.Chunk{c(2, "b.go", 1, 5, "Beta", 0), c(4, "c.go", 1, 5, "Gamma", 0), c(1, "a.go", 1, 10, "Alpha", 0)}
	hits := fuse("something", lex, vec, []float32{0.9, 0.8, 0.5}, 10)
	var got []string
	for _, h := range hits {
		got = append(got, h.Symbol)
	}
	// Beta is second and first; Alpha first and third; the second part
	// of Alpha is dropped; Gamma appears once.
	if strings.Join(got, " ") != "Beta Alpha Gamma" {
		t.Errorf("fused order %q, want Beta Alpha Gamma", got)
	}
	if hits[0].LexicalRank != 2 || hits[0].VectorRank != 1 {
		t.Errorf("ranks %+v", hits[0])
	}
	// Without vectors the lexical order stands.
	lexOnly := fuse("something", lex, nil, nil, 10)
	if len(lexOnly) != 2 || lexOnly[0].Symbol != "Alpha" || lexOnly[1].Symbol != "Beta" {
		t.Errorf("lexical only: %+v", lexOnly)
	}
}

func TestFuseCapsHitsPerFile(t *testing.T) {
	var lex []index.Chunk
	for i := range 8 {
		lex = append(lex, index.Chunk{ID: int64(i + 1), Path: "big.go", StartLine: 10*i + 1, EndLine: 10*i + 5, Kind: "function",
			Symbol: fmt.Sprintf("F%d", i), Score: float64(100 - i)})
	}
	lex = append(lex, index.Chunk{ID: 99, Path: "small.go", StartLine: 1, EndLine: 5, Kind: "function", Symbol: "S", Score: 1})
	hits := fuse("f", lex, nil, nil, 4)
	if len(hits) != 4 || hits[2].Path != "small.go" {
		t.Errorf("a third of the hits from one file, then the other file: %+v", hits)
	}
	// With nothing else left the cap gives way.
	if hits := fuse("f", lex[:8], nil, nil, 4); len(hits) != 4 {
		t.Errorf("got %d hits, want 4", len(hits))
	}
}
