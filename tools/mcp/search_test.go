package mcp

import (
	"fmt"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"createIssue", []string{"creat", "issu"}},
		{"Create the issues, please!", []string{"creat", "issu"}},
		{"searching repositories", []string{"search", "repository"}},
		{"list_branches for my repo", []string{"list", "branch", "repo"}},
		{"a tool to use", nil},
	}
	for _, tt := range tests {
		if got := words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// syntheticCatalog is n tools spread over 10 servers, with names and
// descriptions drawn from a small vocabulary, as a large MCP setup has.
func syntheticCatalog(n int) []*RemoteTool {
	verbs := []string{"create", "list", "get", "update", "delete", "search", "send", "read", "write", "run"}
	nouns := []string{"issue", "pull_request", "branch", "file", "message", "event", "record", "page", "query", "job", "user", "comment"}
	var cat []*RemoteTool
	taken := map[string]bool{}
	for i := range n {
		srv := &server{cfg: ServerConfig{Name: fmt.Sprintf("server%d", i%10)}}
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		tool := &sdk.Tool{
			Name:        fmt.Sprintf("%s_%s_%d", v, o, i),
			Description: fmt.Sprintf("%s a %s in the service; returns the %s as JSON with its id, title and timestamps.", v, o, o),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		}
		rt := newRemoteTool(srv, tool, func(s string) bool { return taken[s] })
		taken[rt.spec.Name] = true
		cat = append(cat, rt)
	}
	return cat
}

func TestSearchRanksLargeCatalogs(t *testing.T) {
	idx := newBM25(syntheticCatalog(500))
	got := idx.rank(words("delete a comment"))
	if len(got) == 0 {
		t.Fatal("no match")
	}
	cat := syntheticCatalog(500)
	top := cat[got[0]].spec.Name
	if !slices.Contains(words(top), "delet") || !slices.Contains(words(top), "comment") {
		t.Errorf("best match for \"delete a comment\" is %s", top)
	}
}

// BenchmarkSearch measures ranking a 500-tool catalog, the index built
// once (as Search does until the catalog grows).
func BenchmarkSearch(b *testing.B) {
	cat := syntheticCatalog(500)
	idx := newBM25(cat)
	q := words("create a pull request comment")
	b.ReportAllocs()
	for b.Loop() {
		idx.rank(q)
	}
}

// BenchmarkIndex measures building the index over a 500-tool catalog.
func BenchmarkIndex(b *testing.B) {
	cat := syntheticCatalog(500)
	b.ReportAllocs()
	for b.Loop() {
		newBM25(cat)
	}
}
