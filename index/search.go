package index

import (
	"context"
	"database/sql"
	"path"
	"strings"
	"unicode/utf8"
)

// Chunk is an indexed piece of a file. Lines are 1-based and inclusive.
type Chunk struct {
	ID                 int64
	Path, Lang         string
	StartLine, EndLine int
	// Kind is function, method, type, struct, class, interface, …, or
	// code and text for pieces outside any symbol.
	Kind   string
	Symbol string
	// Sig is the line the symbol's name stands on (its signature), empty
	// for the later parts of a split symbol and for plain code.
	Sig  string
	Text string
	// Score ranks a search's hits, higher first; it is comparable only
	// within one search.
	Score float64
}

// Filter narrows a search. Zero fields do not filter.
type Filter struct {
	// Lang is a language name as the index records it: go, python,
	// javascript, typescript, tsx, rust, java, c, cpp, ruby, bash,
	// markdown, …, or an extension of one ("py", "ts": LangOf).
	Lang string
	// PathPrefix keeps files whose slash-separated path, relative to the
	// root, starts with it.
	PathPrefix string
	// Class keeps files of one class (ClassCode, ClassTest, ClassDocs,
	// ClassFixture, ClassConfig; see Classify).
	Class string
}

// Keeps reports whether a file at path rel in language lang passes the
// filter.
func (f Filter) Keeps(rel, lang string) bool {
	return (f.Lang == "" || lang == f.Lang) && strings.HasPrefix(rel, f.PathPrefix) &&
		(f.Class == "" || Classify(rel, lang) == f.Class)
}

// Clean normalises the filter the way the index stores paths and
// languages: slash-separated, relative, lower-case language names.
func (f Filter) Clean() Filter {
	if f.PathPrefix != "" {
		p := strings.ReplaceAll(f.PathPrefix, `\`, "/")
		trailing := strings.HasSuffix(p, "/")
		p = path.Clean(p)
		if p == "." || p == "/" {
			p = ""
		} else if trailing {
			p += "/"
		}
		f.PathPrefix = strings.TrimPrefix(p, "/")
	}
	f.Lang = LangOf(f.Lang)
	return f
}

// where returns the SQL conditions and arguments of the filter, over the
// files table aliased f.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Lang != "" {
		conds = append(conds, "f.lang = ?")
		args = append(args, f.Lang)
	}
	if f.PathPrefix != "" {
		conds = append(conds, "substr(f.path, 1, ?) = ?")
		args = append(args, utf8.RuneCountInString(f.PathPrefix), f.PathPrefix)
	}
	if f.Class != "" {
		conds = append(conds, "tern_class(f.path, f.lang) = ?")
		args = append(args, f.Class)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

const chunkColumns = `c.id, f.path, f.lang, c.start_line, c.end_line, c.kind, c.symbol, c.sig, c.text`

func scanChunk(rows *sql.Rows) (Chunk, error) {
	var c Chunk
	err := rows.Scan(&c.ID, &c.Path, &c.Lang, &c.StartLine, &c.EndLine, &c.Kind, &c.Symbol, &c.Sig, &c.Text)
	return c, err
}

// commonRows is how many matching chunks make a word common. Ranking
// costs a few microseconds per matching chunk, so queries avoid ranking
// every chunk that holds a common word.
const commonRows = 3000

// Chunks returns the chunks with the given ids, in the order given;
// chunks that no longer exist are left out.
func (ix *Index) Chunks(ctx context.Context, ids []int64) ([]Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q := `SELECT ` + chunkColumns + ` FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE c.id IN (?` + strings.Repeat(",?", len(ids)-1) + `)`
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	byID := make(map[int64]Chunk, len(ids))
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, ix.fail("read index", err)
		}
		byID[c.ID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, ix.fail("read index", err)
	}
	out := make([]Chunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// VectorRef names a chunk that has a vector.
type VectorRef struct {
	ID         int64
	Lang, Path string
}

// VectorRefs lists every chunk that has a vector. Consecutive chunks of
// one file share their path string.
func (ix *Index) VectorRefs(ctx context.Context) ([]VectorRef, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT c.id, f.lang, f.path FROM chunks c
		JOIN files f ON f.id = c.file_id
		WHERE EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash)`)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	var out []VectorRef
	var lang, path string
	for rows.Next() {
		var r VectorRef
		var l, p []byte
		if err := rows.Scan(&r.ID, &l, &p); err != nil {
			return nil, ix.fail("read index", err)
		}
		if string(p) != path {
			lang, path = string(l), string(p)
		}
		r.Lang, r.Path = lang, path
		out = append(out, r)
	}
	return out, ix.fail("read index", rows.Err())
}

// ChunkRefs lists every chunk, vector or not, in file order; chunks of
// one file share their path string. It reads the file index of the chunks
// and the files, not the chunks themselves: cheaper than VectorRefs when
// the caller knows which chunks have vectors (AllVectors says).
func (ix *Index) ChunkRefs(ctx context.Context) ([]VectorRef, error) {
	type file struct{ lang, path string }
	files := map[int64]file{}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, lang, path FROM files`)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var f file
		if err := rows.Scan(&id, &f.lang, &f.path); err != nil {
			return nil, ix.fail("read index", err)
		}
		files[id] = f
	}
	if err := rows.Err(); err != nil {
		return nil, ix.fail("read index", err)
	}
	rows, err = ix.db.QueryContext(ctx, `SELECT file_id, id FROM chunks ORDER BY file_id`)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	var out []VectorRef
	for rows.Next() {
		var fid, id int64
		if err := rows.Scan(&fid, &id); err != nil {
			return nil, ix.fail("read index", err)
		}
		f := files[fid]
		out = append(out, VectorRef{ID: id, Lang: f.lang, Path: f.path})
	}
	return out, ix.fail("read index", rows.Err())
}

// Vectors calls fn with the stored vector of each chunk in ids (of every
// chunk that has one when ids is nil). The bytes are valid only during
// the call; DecodeVector reads them.
func (ix *Index) Vectors(ctx context.Context, ids []int64, fn func(id int64, vec []byte)) error {
	const q = `SELECT c.id, v.vec FROM chunks c JOIN vectors v ON v.hash = c.hash`
	if ids == nil {
		// Read the vectors in storage order and look their chunks up,
		// rather than seek a vector for every chunk.
		const all = `SELECT c.id, v.vec FROM vectors v CROSS JOIN chunks c ON c.hash = v.hash`
		return ix.eachVector(ctx, all, nil, fn)
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 500)]
		ids = ids[len(batch):]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		err := ix.eachVector(ctx, q+` WHERE c.id IN (?`+strings.Repeat(",?", len(batch)-1)+`)`, args, fn)
		if err != nil {
			return err
		}
	}
	return nil
}

func (ix *Index) eachVector(ctx context.Context, q string, args []any, fn func(int64, []byte)) error {
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return ix.fail("read vectors", err)
	}
	defer rows.Close()
	var id int64
	var vec sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &vec); err != nil {
			return ix.fail("read vectors", err)
		}
		fn(id, vec)
	}
	return ix.fail("read vectors", rows.Err())
}

// Symbol is a declaration, for the repository map.
type Symbol struct {
	Path, Kind, Name, Sig string
	Line                  int
}

// Symbols lists every declaration that has a signature, in no particular
// order.
func (ix *Index) Symbols(ctx context.Context) ([]Symbol, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT f.path, c.kind, c.symbol, c.sig, c.start_line
		FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE c.sig != '' AND c.symbol != ''`)
	if err != nil {
		return nil, ix.fail("read index", err)
	}
	defer rows.Close()
	var out []Symbol
	var path string
	for rows.Next() {
		var s Symbol
		var p []byte
		if err := rows.Scan(&p, &s.Kind, &s.Name, &s.Sig, &s.Line); err != nil {
			return nil, ix.fail("read index", err)
		}
		if string(p) != path {
			path = string(p)
		}
		s.Path = path
		out = append(out, s)
	}
	return out, ix.fail("read index", rows.Err())
}

// Identifiers calls fn with each indexed file's distinct identifiers,
// space-separated, for counting references.
func (ix *Index) Identifiers(ctx context.Context, fn func(path, idents string)) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, idents FROM files WHERE skip = ''`)
	if err != nil {
		return ix.fail("read index", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p, ids string
		if err := rows.Scan(&p, &ids); err != nil {
			return ix.fail("read index", err)
		}
		fn(p, ids)
	}
	return ix.fail("read index", rows.Err())
}
