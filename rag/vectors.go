package rag

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	chromem "github.com/philippgille/chromem-go"

	"github.com/ternhq/tern/index"
)

// vectorSet is the in-memory copy of the index's vectors: a chromem-go
// collection whose documents are chunk ids. SQLite stays the store of
// record; chromem's own file persistence is not used (it names files by
// 32 bits of a hash, and loses documents to collisions at scale).
//
// A document's content is "\x01lang\x02path", so that chromem's
// $contains filter, which runs before any vector is scored, selects a
// language ("\x01go\x02"), a path prefix ("\x02net/http/") or both.
type vectorSet struct {
	col   *chromem.Collection
	gen   int64 // index generation the collection reflects
	model string
	dim   int
	have  map[int64]bool
	slab  []float32 // spare room for decoded vectors
}

// loadedVector is a vector read before its chunk is known to be wanted.
type loadedVector struct {
	id  int64
	vec []float32
}

// slabVectors is how many vectors are allocated at once.
const slabVectors = 1024

// refresh brings the collection in line with the index, loading only the
// vectors it lacks. It costs one small query when nothing changed.
func (v *vectorSet) refresh(ctx context.Context, ix *index.Index) error {
	gen, err := ix.Generation(ctx)
	if err != nil {
		return err
	}
	if v.col != nil && gen == v.gen {
		return nil
	}
	model, dim, err := ix.Embedding(ctx)
	if err != nil {
		return err
	}
	if v.col == nil || model != v.model || dim != v.dim {
		col, err := chromem.NewDB().CreateCollection("chunks", nil, nil)
		if err != nil {
			return fmt.Errorf("vector collection: %w", err)
		}
		*v = vectorSet{col: col, model: model, dim: dim, have: map[int64]bool{}}
	}
	// A first load reads every vector, in parts on all cores, while
	// another goroutine reads what the chunks are: all of them, which
	// costs less than asking which have vectors (the load says).
	var loaded []loadedVector
	var loadErr error
	var loading sync.WaitGroup
	first := len(v.have) == 0
	if first {
		loading.Go(func() {
			parts := max(1, runtime.GOMAXPROCS(0))
			got := make([][]loadedVector, parts)
			slabs := make([]vectorSet, parts) // a slab for each part
			for i := range slabs {
				slabs[i].dim = dim
			}
			loadErr = ix.AllVectors(ctx, parts, func(p int, id int64, b []byte) {
				if len(b) != 4*dim {
					return
				}
				vec := slabs[p].alloc()
				index.DecodeVector(vec, b)
				got[p] = append(got[p], loadedVector{id, vec})
			})
			for _, g := range got {
				loaded = append(loaded, g...)
			}
		})
	}
	var refs []index.VectorRef
	if first {
		refs, err = ix.ChunkRefs(ctx)
	} else {
		refs, err = ix.VectorRefs(ctx)
	}
	loading.Wait()
	if err == nil {
		err = loadErr
	}
	if err != nil {
		v.col = nil // start over next time
		return err
	}
	content := map[string]string{} // one string per file, shared by its chunks
	want := make(map[int64]string, len(refs))
	for _, r := range refs {
		c, ok := content[r.Path]
		if !ok {
			c = "\x01" + r.Lang + "\x02" + r.Path
			content[r.Path] = c
		}
		want[r.ID] = c
	}
	var stale []string
	for id := range v.have {
		if _, ok := want[id]; !ok {
			stale = append(stale, strconv.FormatInt(id, 10))
			delete(v.have, id)
		}
	}
	if len(stale) > 0 { // never call Delete without ids: that deletes everything
		if err := v.col.Delete(ctx, nil, nil, stale...); err != nil {
			return fmt.Errorf("vector collection: %w", err)
		}
	}
	var addErr error
	add := func(id int64, vec []float32) {
		c, ok := want[id]
		if !ok || v.have[id] || addErr != nil || zero(vec) { // chromem would turn a zero vector into NaNs
			return
		}
		addErr = v.col.AddDocument(ctx, chromem.Document{ID: strconv.FormatInt(id, 10), Embedding: vec, Content: c})
		v.have[id] = true
	}
	if first {
		if err := v.addAll(ctx, loaded, want); err != nil {
			v.col = nil
			return fmt.Errorf("load vectors: %w", err)
		}
	}
	var missing []int64
	for id := range want {
		if !v.have[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 && !first {
		err := ix.Vectors(ctx, missing, func(id int64, b []byte) {
			if len(b) != 4*dim || v.have[id] {
				return
			}
			vec := v.alloc()
			index.DecodeVector(vec, b)
			add(id, vec)
		})
		if err == nil {
			err = addErr
		}
		if err != nil {
			v.col = nil // start over next time
			return fmt.Errorf("load vectors: %w", err)
		}
	}
	if addErr != nil {
		v.col = nil
		return fmt.Errorf("load vectors: %w", addErr)
	}
	v.gen = gen
	return nil
}

// addAll adds the loaded vectors of the chunks in want (with their
// contents) to an empty collection, on all cores: chromem checks each
// vector's length as it adds it.
func (v *vectorSet) addAll(ctx context.Context, loaded []loadedVector, want map[int64]string) error {
	docs := make([]chromem.Document, 0, len(loaded))
	for _, lv := range loaded {
		c, ok := want[lv.id]
		if !ok || v.have[lv.id] || zero(lv.vec) { // chromem would turn a zero vector into NaNs
			continue
		}
		docs = append(docs, chromem.Document{ID: strconv.FormatInt(lv.id, 10), Embedding: lv.vec, Content: c})
		v.have[lv.id] = true
	}
	parts := max(1, min(runtime.GOMAXPROCS(0), len(docs)/512))
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			for i := p; i < len(docs) && errs[p] == nil; i += parts {
				errs[p] = v.col.AddDocument(ctx, docs[i])
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// alloc hands out room for one vector from a shared slab, so that a large
// collection costs a few big allocations instead of one per chunk.
func (v *vectorSet) alloc() []float32 {
	if len(v.slab) < v.dim {
		v.slab = make([]float32, v.dim*slabVectors)
	}
	vec := v.slab[:v.dim:v.dim]
	v.slab = v.slab[v.dim:]
	return vec
}

// nearest returns the ids of the n chunks nearest to q that pass the
// filter, and their similarities to q.
func nearest(ctx context.Context, col *chromem.Collection, q []float32, f index.Filter, n int) ([]int64, []float32, error) {
	var where map[string]string
	switch {
	case f.Lang != "":
		where = map[string]string{"$contains": "\x01" + f.Lang + "\x02" + f.PathPrefix}
	case f.PathPrefix != "":
		where = map[string]string{"$contains": "\x02" + f.PathPrefix}
	}
	// chromem refuses n larger than the whole collection.
	n = min(n, col.Count())
	if n == 0 {
		return nil, nil, nil
	}
	res, err := col.QueryEmbedding(ctx, q, n, nil, where)
	if err != nil {
		return nil, nil, fmt.Errorf("vector search: %w", err)
	}
	ids := make([]int64, 0, len(res))
	sims := make([]float32, 0, len(res))
	for _, r := range res {
		id, err := strconv.ParseInt(r.ID, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("vector search: bad document id %q", r.ID)
		}
		ids = append(ids, id)
		sims = append(sims, r.Similarity)
	}
	return ids, sims, nil
}

func zero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
