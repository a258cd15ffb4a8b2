package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ternhq/tern/models"
)

// embedAttempts is how often a failing batch is tried before giving up.
const embedAttempts = 3

// maxEmbedInput caps the text sent for one chunk; chunks are smaller
// except when a single line is huge.
const maxEmbedInput = 3 * maxChunkBytes

// checkModel makes sure the index never mixes vectors of two models: when
// the update embeds with another model than the stored vectors', they are
// dropped and rebuilt.
func (u *updater) checkModel(ctx context.Context, w *writer) error {
	meta, err := u.ix.meta(ctx)
	if err != nil {
		return err
	}
	old := meta["embed_model"]
	u.stats.Model = old
	if u.opts.Embedder == nil || old == u.opts.Model {
		return nil
	}
	u.stats.Model = u.opts.Model
	if old != "" {
		u.stats.PreviousModel = old
		if err := w.execSQL(`DELETE FROM vectors`); err != nil {
			return err
		}
		w.changed = true
	}
	if err := w.setMeta("embed_model", u.opts.Model); err != nil {
		return err
	}
	if err := w.setMeta("embed_dim", ""); err != nil {
		return err
	}
	return w.commit()
}

// embed gives a vector to every chunk text that has none.
func (u *updater) embed(ctx context.Context, w *writer) error {
	hashes, err := u.ix.unembedded(ctx)
	if err != nil {
		return err
	}
	meta, err := u.ix.meta(ctx)
	if err != nil {
		return err
	}
	dim, _ := strconv.Atoi(meta["embed_dim"])
	u.mu.Lock()
	u.progress.ToEmbed = len(hashes)
	u.mu.Unlock()
	u.report(PhaseEmbed, true)
	for len(hashes) > 0 {
		if err := ctx.Err(); err != nil {
			return errors.Join(err, w.commit())
		}
		batch := hashes[:min(len(hashes), u.opts.EmbedBatch)]
		hashes = hashes[len(batch):]
		texts, err := u.ix.textsOf(ctx, batch)
		if err != nil {
			return err
		}
		vecs, err := u.embedBatch(ctx, texts)
		if err != nil {
			return errors.Join(err, w.commit())
		}
		for i, v := range vecs {
			if dim == 0 {
				dim = len(v)
				if err := w.setMeta("embed_dim", strconv.Itoa(dim)); err != nil {
					return err
				}
			}
			if len(v) != dim {
				return errors.Join(fmt.Errorf("embed with %s: got a vector of %d numbers, the index holds %d", u.opts.Model, len(v), dim), w.commit())
			}
			if _, err := w.exec("putVector", batch[i], encodeVector(v)); err != nil {
				return err
			}
		}
		w.changed = true
		w.files++
		if err := w.maybeCommit(); err != nil {
			return err
		}
		u.mu.Lock()
		u.stats.Embedded += len(batch)
		u.progress.Embedded += len(batch)
		u.mu.Unlock()
		u.report(PhaseEmbed, false)
	}
	return w.commit()
}

// embedBatch asks the embedder for vectors, retrying transient failures.
func (u *updater) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	model := u.opts.Model
	for attempt := 1; ; attempt++ {
		vecs, err := u.opts.Embedder.Embed(ctx, model, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("got %d vectors for %d texts", len(vecs), len(texts))
		}
		if err == nil {
			return vecs, nil
		}
		if errors.Is(err, models.ErrModelNotFound) {
			return nil, fmt.Errorf("embedding model %s is not installed (run: ollama pull %s): %w", model, model, err)
		}
		if ctx.Err() != nil || attempt == embedAttempts {
			return nil, fmt.Errorf("embed with %s: %w", model, err)
		}
		select {
		case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("embed with %s: %w", model, ctx.Err())
		}
	}
}

// unembedded lists the distinct chunk hashes that have no vector.
func (ix *Index) unembedded(ctx context.Context) ([][]byte, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT DISTINCT c.hash FROM chunks c
		WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash)`)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var h []byte
		if err := rows.Scan(&h); err != nil {
			return nil, ix.fail("read index", err)
		}
		out = append(out, h)
	}
	return out, ix.fail("read index", rows.Err())
}

// textsOf returns one chunk text for each hash, in order.
func (ix *Index) textsOf(ctx context.Context, hashes [][]byte) ([]string, error) {
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = h
	}
	q := `SELECT hash, text FROM chunks WHERE hash IN (?` + strings.Repeat(",?", len(hashes)-1) + `)`
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	byHash := map[string]string{}
	for rows.Next() {
		var h []byte
		var text string
		if err := rows.Scan(&h, &text); err != nil {
			return nil, ix.fail("read index", err)
		}
		if len(text) > maxEmbedInput {
			text = strings.ToValidUTF8(text[:maxEmbedInput], "")
		}
		byHash[string(h)] = text
	}
	if err := rows.Err(); err != nil {
		return nil, ix.fail("read index", err)
	}
	out := make([]string, len(hashes))
	for i, h := range hashes {
		t, ok := byHash[string(h)]
		if !ok {
			return nil, fmt.Errorf("read index: chunk text vanished during the update")
		}
		out[i] = t
	}
	return out, nil
}

// encodeVector stores v, scaled to unit length, as little-endian float32s.
func encodeVector(v []float32) []byte {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	scale := float32(1)
	if norm > 0 {
		scale = float32(1 / math.Sqrt(norm))
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x*scale))
	}
	return b
}

// DecodeVector reads a vector stored by the index into dst, which must
// have room for len(b)/4 numbers. On a little-endian machine the stored
// bytes are the numbers' memory, so loading the vectors of a large index
// is one copy, not a conversion per number.
func DecodeVector(dst []float32, b []byte) {
	if littleEndian && len(dst) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst)), b)
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
