package index

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// AllVectors calls fn with the stored vector of every chunk that has one,
// reading parts ranges of the store at once, each on its own connection:
// loading the vectors of a large index is mostly copying them out of
// SQLite, which one core does at a few hundred MB a second. fn is called
// concurrently, with the part it serves; the bytes are valid only during
// the call, and DecodeVector reads them.
func (ix *Index) AllVectors(ctx context.Context, parts int, fn func(part int, id int64, vec []byte)) error {
	var lo, hi sql.NullInt64
	if err := ix.db.QueryRowContext(ctx, `SELECT min(id), max(id) FROM vectors`).Scan(&lo, &hi); err != nil {
		return ix.fail("read vectors", err)
	}
	if !lo.Valid {
		return nil
	}
	parts = int(max(1, min(int64(parts), hi.Int64-lo.Int64+1)))
	step := (hi.Int64 - lo.Int64 + int64(parts)) / int64(parts)
	const q = `SELECT c.id, v.vec FROM vectors v CROSS JOIN chunks c ON c.hash = v.hash WHERE v.id >= ? AND v.id < ?`
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		from := lo.Int64 + int64(p)*step
		wg.Go(func() {
			errs[p] = ix.eachVector(ctx, q, []any{from, from + step}, func(id int64, vec []byte) { fn(p, id, vec) })
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
