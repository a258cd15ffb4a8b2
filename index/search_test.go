package index

import (
	"fmt"
	"testing"
)

// indexedLangs indexes testdata/langs (one file per language).
func indexedLangs(t *testing.T) *Index {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{}
	entries, err := readDir("testdata/langs")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range entries {
		files[name] = body
	}
	writeFiles(t, root, files)
	ix := openIndex(t, root)
	update(t, ix, Options{})
	return ix
}

func TestLexicalFindsIdentifiersByTheirWords(t *testing.T) {
	ix := indexedLangs(t)
	tests := []struct {
		query  string
		filter Filter
		want   []string // "path symbol" that must all be among the hits
	}{
		{"parseConfigFile", Filter{}, []string{"server.go parseConfigFile"}},
		{"parse config file", Filter{}, []string{"server.go parseConfigFile", "config.py parse_config_file"}},
		{"parse_config_file", Filter{}, []string{"config.py parse_config_file", "server.go parseConfigFile"}},
		{"ServeHTTP", Filter{}, []string{"server.go Server.ServeHTTP"}},
		{"serve http", Filter{}, []string{"server.go Server.ServeHTTP"}},
		{"least recently used cache", Filter{}, []string{"LruCache.java LruCache"}},
		{"config", Filter{Lang: "python"}, []string{"config.py Config"}},
		{"config", Filter{PathPrefix: "server"}, []string{"server.go Config"}},
		{"func(x", Filter{}, nil},
		{`"AND OR NOT (`, Filter{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := ix.Lexical(t.Context(), tt.query, tt.filter, 10)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, h := range hits {
				got[h.Path+" "+h.Symbol] = true
				if tt.filter.Lang != "" && h.Lang != tt.filter.Lang || tt.filter.PathPrefix != "" && h.Path[:len(tt.filter.PathPrefix)] != tt.filter.PathPrefix {
					t.Errorf("hit %s (%s) escapes filter %+v", h.Path, h.Lang, tt.filter)
				}
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("hits lack %q: %v", w, keys(got))
				}
			}
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestChunksKeepsOrder(t *testing.T) {
	ix := indexedLangs(t)
	hits, err := ix.Lexical(t.Context(), "config", Filter{}, 3)
	if err != nil || len(hits) < 2 {
		t.Fatalf("%v %v", hits, err)
	}
	ids := []int64{hits[1].ID, hits[0].ID, 999999}
	got, err := ix.Chunks(t.Context(), ids)
	if err != nil || len(got) != 2 || got[0].ID != ids[0] || got[1].ID != ids[1] {
		t.Errorf("Chunks(%v) = %v, %v", ids, got, err)
	}
}

func TestSymbolsHaveSignatures(t *testing.T) {
	ix := indexedLangs(t)
	syms, err := ix.Symbols(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range syms {
		if s.Name == "Server.ServeHTTP" {
			found = true
			want := "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request)"
			if s.Sig != want || s.Kind != "method" || s.Path != "server.go" {
				t.Errorf("symbol = %+v, want sig %q", s, want)
			}
		}
	}
	if !found {
		t.Errorf("no Server.ServeHTTP among %d symbols: %s", len(syms), fmt.Sprint(syms[:min(5, len(syms))]))
	}
}
