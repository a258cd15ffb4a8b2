package index

import (
	"sync"
	"testing"

	"github.com/ternhq/tern/index/indextest"
)

// TestChunkRefs checks the cheap listing a first vector load uses against
// VectorRefs: every chunk once, with its file's language and path.
func TestChunkRefs(t *testing.T) {
	root := copyRepo(t)
	ix := openIndex(t, root)
	update(t, ix, Options{Embedder: &indextest.Embedder{}, Model: "m"})
	all, err := ix.ChunkRefs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	with, err := ix.VectorRefs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := ix.Status(t.Context())
	if len(all) != st.Chunks || len(with) != st.Embedded || len(all) != len(with) || len(all) == 0 {
		t.Fatalf("ChunkRefs %d, VectorRefs %d, status %+v", len(all), len(with), st)
	}
	byID := map[int64]VectorRef{}
	for _, r := range all {
		if _, dup := byID[r.ID]; dup {
			t.Fatalf("chunk %d listed twice", r.ID)
		}
		byID[r.ID] = r
	}
	for _, r := range with {
		if byID[r.ID] != r {
			t.Errorf("ChunkRefs has %+v, VectorRefs %+v", byID[r.ID], r)
		}
	}
	var mu sync.Mutex // fn is called from several goroutines
	n := 0
	err = ix.AllVectors(t.Context(), 3, func(_ int, id int64, vec []byte) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := byID[id]; !ok {
			t.Errorf("vector of unknown chunk %d", id)
		}
		n++
	})
	if err != nil || n != len(with) {
		t.Errorf("AllVectors gave %d vectors (%v), want %d", n, err, len(with))
	}
}
