package index

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitIdent(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"parseConfigFile", "parse config file"},
		{"parse_config_file", "parse config file"},
		{"ParseConfigFile", "parse config file"},
		{"HTTPServer", "http server"},
		{"ServeHTTP", "serve http"},
		{"utf8Decode", "utf 8 decode"},
		{"XMLHttpRequest2", "xml http request 2"},
		{"sha256", "sha 256"},
		{"x", "x"},
		{"__init__", "init"},
	}
	for _, tt := range tests {
		if got := strings.Join(splitIdent(tt.in), " "); got != tt.want {
			t.Errorf("splitIdent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSplitWordsListsCompoundIdentifiersOnce(t *testing.T) {
	got := splitWords("cfg := parseConfigFile(p); parseConfigFile(q); snake_case; ok", map[string]struct{}{})
	if got != "parse config file ; " {
		t.Errorf("splitWords = %q", got)
	}
}

func TestQueryWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"where is the config file parsed?", []string{"config", "file", "parsed"}},
		{"func(x", []string{"func"}},
		{`"unbalanced quote AND NEAR(`, []string{"unbalanced", "quote", "NEAR"}},
		{"the", []string{"the"}},
		{"***", nil},
	}
	for _, tt := range tests {
		if got := queryWords(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("queryWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSplitWordsCacheChangesNothing runs splitWords with and without the
// cache of split identifiers over texts that share identifiers.
func TestSplitWordsCacheChangesNothing(t *testing.T) {
	entries, err := readDir("testdata/langs")
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string]string{}
	seen := map[string]struct{}{}
	for name, body := range entries {
		for _, text := range append(strings.Split(body, "\n\n"), body, "x := HTTPServer2; HTTPServer2.parse_configFile()") {
			want := splitWords(text, map[string]struct{}{})
			if got := splitWordsCached(text, seen, cache); got != want {
				t.Errorf("%s: cached splitWords = %q, want %q", name, got, want)
			}
		}
	}
}
