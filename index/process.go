package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// scratch is a worker's reusable memory: processing a file allocates
// little beyond the rows it returns.
type scratch struct {
	buf  []byte              // the file being read
	seen map[string]struct{} // distinct identifiers of a chunk
	// fileSeen is the same for a file. It is another map because clearing
	// a map costs its largest size, and a chunk has far fewer identifiers.
	fileSeen map[string]struct{}
	words    map[string]string // compound identifier → its splitWords entry
	idents   strings.Builder
}

func newScratch() *scratch {
	return &scratch{seen: map[string]struct{}{}, fileSeen: map[string]struct{}{}, words: map[string]string{}}
}

// maxWordCache bounds a worker's cache of split identifiers.
const maxWordCache = 1 << 16

// process reads one file and chunks it.
func (u *updater) process(ctx context.Context, ck *chunker, j job, sc *scratch) record {
	r := record{job: j}
	data, err := readFile(filepath.Join(u.ix.root, filepath.FromSlash(j.rel)), sc.buf)
	if err != nil {
		r.gone = true
		if !errors.Is(err, fs.ErrNotExist) {
			r.problem = fmt.Sprintf("%s: %v", j.rel, errors.Unwrap(err))
		}
		return r
	}
	sc.buf = data[:0]
	sum := sha256.Sum256(data)
	r.hash = sum[:]
	if j.known != nil && !j.known.stale && bytes.Equal(j.known.hash, r.hash) {
		r.touch, r.skip = true, j.known.skip
		return r
	}
	r.lang = detectLang(j.rel, data[:min(len(data), sniffBytes)])
	if r.skip = skipByContent(data); r.skip != "" {
		return r
	}
	if !utf8.Valid(data) {
		// Keep the file searchable: invalid bytes become U+FFFD, which
		// leaves every line where it was.
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		r.converted = true
	}
	l := newLines(data)
	pieces, err := ck.chunkLines(ctx, r.lang, l)
	if err != nil {
		return record{job: j} // cancelled
	}
	// One copy of the file as a string: the chunk texts are slices of it.
	text := string(data)
	r.chunks = chunkRows(pieces, l, text, sc)
	r.pathWords = nameWords(j.rel)
	r.idents = fileIdents(text, sc)
	return r
}

// readFile reads the file at path into buf, which it grows as needed.
func readFile(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// One byte more than the size, so that reading reaches EOF without
	// growing the buffer.
	buf = slices.Grow(buf[:0], int(fi.Size())+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096) // the file grew while being read
		}
	}
}

// chunkRows gives pieces their text, hash and full-text columns. text is
// the file as a string, lines its lines.
func chunkRows(pieces []piece, l *lines, text string, sc *scratch) []chunkRow {
	rows := make([]chunkRow, 0, len(pieces))
	for _, p := range pieces {
		a, b := l.span(p.start, p.end)
		sum := sha256.Sum256(l.src[a:b])
		t := text[a:b]
		rows = append(rows, chunkRow{
			piece: p,
			text:  t,
			hash:  sum[:16],
			name:  nameWords(p.symbol),
			words: sc.splitWords(t),
		})
	}
	return rows
}

// splitWords is splitWords with the worker's scratch space and a cache of
// split identifiers, which recur from chunk to chunk.
func (sc *scratch) splitWords(text string) string {
	if len(sc.words) > maxWordCache {
		clear(sc.words)
	}
	return splitWordsCached(text, sc.seen, sc.words)
}

// fileIdents lists the distinct identifiers of a file, which RepoMap uses
// to count references to symbols.
func fileIdents(text string, sc *scratch) string {
	clear(sc.fileSeen)
	b := &sc.idents
	b.Reset()
	b.Grow(len(text) / 4)
	eachIdent(text, func(id string) {
		if len(id) < 3 {
			return
		}
		if _, ok := sc.fileSeen[id]; ok {
			return
		}
		sc.fileSeen[id] = struct{}{}
		b.WriteString(id)
		b.WriteByte(' ')
	})
	return strings.Clone(b.String())
}
