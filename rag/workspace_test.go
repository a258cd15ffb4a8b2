package rag

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/index/indextest"
)

func TestWorkspace(t *testing.T) {
	root := t.TempDir()
	src := "package calc\n\n// Total adds the prices of an order.\nfunc Total(prices []int) int {\n\tsum := 0\n\tfor _, p := range prices {\n\t\tsum += p\n\t}\n\treturn sum\n}\n"
	if err := os.WriteFile(filepath.Join(root, "total.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w := NewWorkspace(root, nil, "none")
	defer w.Close()
	var counter indextest.Counter
	rag := PromptRetriever{Code: w, Counter: counter}

	if w.Exists() {
		t.Fatal("a workspace without .tern/index.db has an index")
	}
	if _, err := w.Search(t.Context(), "total", Options{}, false); !errors.Is(err, ErrNoIndex) {
		t.Errorf("search without an index: %v, want ErrNoIndex", err)
	}
	for i, want := range []string{"RAG is on, but this repository has no index yet", ""} {
		if _, notice, err := rag.Retrieve(t.Context(), "total", 500); err != nil || !strings.HasPrefix(notice, want) || (want == "" && notice != "") {
			t.Errorf("retrieve %d without an index: notice %q, %v; want it to begin %q (said once)", i, notice, err, want)
		}
	}
	if ok, notice := w.Available(t.Context()); ok || notice != "" {
		t.Errorf("Available without an index = %v, %q", ok, notice)
	}

	ix, err := w.Open(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(t.Context(), index.Options{}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := w.Available(t.Context()); !ok {
		t.Error("search_code is not available over a built index")
	}
	text, how, err := w.SearchCode(t.Context(), "total prices", 5, "", 4000)
	if err != nil || !strings.Contains(text, "total.go:3-10 (function Total)") || how != "2 hits, lexical" {
		t.Errorf("SearchCode = %q, %q, %v", text, how, err)
	}
	text, notice, err := rag.Retrieve(t.Context(), "total prices", 500)
	if err != nil || !strings.Contains(text, "func Total") || !strings.Contains(notice, "RAG: added 1 snippet from the repository") || !strings.Contains(notice, "total.go:") {
		t.Errorf("Retrieve = %q, %q, %v", text, notice, err)
	}
}
