package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyRepo copies testdata/repo into a temporary directory and adds the
// files git itself would ignore (so they cannot live in testdata).
func copyRepo(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("testdata/repo", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/repo", path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dst, map[string]string{
		"app.log":              "noise\n",
		"build/out.go":         "package build\n\nfunc output() {}\n",
		"util/scratch.go":      "package util\n\nfunc scratch() {}\n",
		"sub/deep/junk.tmp.go": "package deep\n\nfunc temp() {}\n",
		"web/bundle.js":        "var x=" + strings.Repeat("1+", 4000) + "1;\n",
		"img/logo.dat":         "PNG\x00\x01\x02binary",
	})
	return dst
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openIndex(t *testing.T, root string) *Index {
	t.Helper()
	ix, err := Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func update(t *testing.T, ix *Index, opts Options) Stats {
	t.Helper()
	st, err := ix.Update(t.Context(), opts)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	return st
}

// indexedPaths lists the paths of indexed (not skipped) files.
func indexedPaths(t *testing.T, ix *Index) []string {
	t.Helper()
	rows, err := ix.db.QueryContext(t.Context(), `SELECT path FROM files WHERE skip = '' ORDER BY path`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		rows.Scan(&p)
		out = append(out, p)
	}
	return out
}

// symbols lists "path symbol" for every chunk with a symbol.
func symbols(t *testing.T, ix *Index) []string {
	t.Helper()
	rows, err := ix.db.QueryContext(t.Context(), `SELECT f.path, c.symbol FROM chunks c
		JOIN files f ON f.id = c.file_id WHERE c.symbol != '' ORDER BY f.path, c.start_line`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, s string
		rows.Scan(&p, &s)
		out = append(out, p+" "+s)
	}
	return out
}

func TestUpdateHonoursIgnoreRulesAndSkips(t *testing.T) {
	root := copyRepo(t)
	ix := openIndex(t, root)
	st := update(t, ix, Options{})

	want := []string{".gitignore", ".ternignore", "docs/guide.md", "main.go", "sub/.gitignore",
		"sub/deep/keep.tmp.go", "sub/deep/parse_config.py", "util/.gitignore", "util/strings.go", "web/cart.js"}
	if got := indexedPaths(t, ix); !slices.Equal(got, want) {
		t.Errorf("indexed files:\n got %q\nwant %q", got, want)
	}
	wantSkips := map[string]int{SkipGenerated: 1, SkipMinified: 2, SkipBinary: 1}
	if !equalCounts(st.Skipped, wantSkips) {
		t.Errorf("skipped = %v, want %v", st.Skipped, wantSkips)
	}
	if st.Indexed != len(want) || st.Chunks == 0 {
		t.Errorf("stats = %+v", st)
	}
	data, err := os.ReadFile(filepath.Join(root, ".tern", ".gitignore"))
	if err != nil || string(data) != "*\n" {
		t.Errorf(".tern/.gitignore = %q, %v", data, err)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestUpdateIsIncremental(t *testing.T) {
	root := copyRepo(t)
	ix := openIndex(t, root)
	first := update(t, ix, Options{})

	again := update(t, ix, Options{})
	if again.Indexed != 0 || again.Chunks != 0 || again.Removed != 0 || !equalCounts(again.Skipped, first.Skipped) {
		t.Errorf("no-change update did work: %+v (first %+v)", again, first)
	}

	tests := []struct {
		name   string
		change func()
		want   Stats
		has    []string
		hasNot []string
	}{{
		name: "edit",
		change: func() {
			writeFiles(t, root, map[string]string{"main.go": "package main\n\n// farewell says goodbye.\nfunc farewell() string { return \"bye\" }\n"})
		},
		want:   Stats{Indexed: 1},
		has:    []string{"main.go farewell"},
		hasNot: []string{"main.go greeting"},
	}, {
		name:   "add",
		change: func() { writeFiles(t, root, map[string]string{"pkg/new.go": "package pkg\n\nfunc Added() {}\n"}) },
		want:   Stats{Indexed: 1},
		has:    []string{"pkg/new.go Added"},
	}, {
		name:   "delete",
		change: func() { os.Remove(filepath.Join(root, "web", "cart.js")) },
		want:   Stats{Removed: 1},
		hasNot: []string{"web/cart.js addToCart"},
	}, {
		name: "rename",
		change: func() {
			os.Rename(filepath.Join(root, "util", "strings.go"), filepath.Join(root, "util", "text.go"))
		},
		want:   Stats{Indexed: 1, Removed: 1},
		has:    []string{"util/text.go ReverseString"},
		hasNot: []string{"util/strings.go ReverseString"},
	}, {
		name:   "newly ignored",
		change: func() { writeFiles(t, root, map[string]string{".ternignore": "secret/\ndocs/\n"}) },
		want:   Stats{Indexed: 1, Removed: 1},
		hasNot: []string{"docs/guide.md Guide"},
	}, {
		name:   "touched, same content",
		change: func() { touch(t, filepath.Join(root, "main.go")) },
		want:   Stats{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change()
			st := update(t, ix, Options{})
			if st.Indexed != tt.want.Indexed || st.Removed != tt.want.Removed {
				t.Errorf("indexed %d, removed %d; want %d, %d (%+v)", st.Indexed, st.Removed, tt.want.Indexed, tt.want.Removed, st)
			}
			syms := symbols(t, ix)
			for _, s := range tt.has {
				if !slices.Contains(syms, s) {
					t.Errorf("index lacks %q: %q", s, syms)
				}
			}
			for _, s := range tt.hasNot {
				if slices.Contains(syms, s) {
					t.Errorf("index still has %q", s)
				}
			}
		})
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	later := fi.ModTime().Add(3e9)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func TestUpdateSurvivesHostileTrees(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"ok.go":         "package ok\n\nfunc Fine() {}\n",
		"broken.go":     "package broken\n\nfunc Half( {\n\tif x {\n}\n\nfunc After() int { return 1 }\n",
		"wrong.py":      "package main\n\nfunc NotPython() {}\n",
		"latin1.txt":    "caf\xe9 cr\xe8me br\xfbl\xe9e recipe\n",
		"loop/file.txt": "a file next to a link loop\n",
	})
	if err := os.Symlink(root, filepath.Join(root, "loop", "again")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root reads everything
		writeFiles(t, root, map[string]string{"locked.go": "package locked\n"})
		os.Chmod(filepath.Join(root, "locked.go"), 0)
	}
	ix := openIndex(t, root)
	st := update(t, ix, Options{})

	if syms := symbols(t, ix); !slices.Contains(syms, "ok.go Fine") {
		t.Errorf("index lacks ok.go Fine: %q", syms)
	}
	hits, err := ix.Lexical(t.Context(), "After", Filter{}, 5)
	if err != nil || len(hits) != 1 || hits[0].Path != "broken.go" {
		t.Errorf("text after a syntax error is not searchable: %v %v", hits, err)
	}
	hits, err = ix.Lexical(t.Context(), "NotPython", Filter{}, 5)
	if err != nil || len(hits) != 1 || hits[0].Path != "wrong.py" {
		t.Errorf("text of an unparseable file is not searchable: %v %v", hits, err)
	}
	hits, err = ix.Lexical(t.Context(), "recipe", Filter{}, 5)
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Text, "caf\uFFFD") {
		t.Errorf("non-UTF-8 file: %v %v", hits, err)
	}
	if !slices.ContainsFunc(st.Problems, func(p string) bool { return strings.HasPrefix(p, "latin1.txt: not valid UTF-8") }) {
		t.Errorf("problems = %q, want the latin1 file mentioned", st.Problems)
	}
	if os.Geteuid() != 0 && st.Skipped["unreadable"] != 1 {
		t.Errorf("unreadable file not reported: %+v", st)
	}
}

func TestRootBehindSymlink(t *testing.T) {
	real := t.TempDir()
	writeFiles(t, real, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	link := filepath.Join(t.TempDir(), "repo")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, link)
	if st := update(t, ix, Options{}); st.Indexed != 1 {
		t.Errorf("indexed %d files through a linked root", st.Indexed)
	}
}

func TestVanishedFileIsDropped(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	ix := openIndex(t, root)
	update(t, ix, Options{})
	known, _, err := ix.knownFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "a.go"))
	// The walk saw the file; it is gone by the time a worker reads it.
	u := &updater{ix: ix}
	ck := newChunker()
	defer ck.Close()
	r := u.process(t.Context(), ck, job{rel: "a.go", known: known["a.go"]}, newScratch())
	if !r.gone || r.problem != "" {
		t.Errorf("record = %+v, want gone without a problem", r)
	}
}

func TestFileChangedWhileReadIsReadAgain(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\n\nfunc Old() {}\n"})
	ix := openIndex(t, root)
	update(t, ix, Options{})
	known, _, err := ix.knownFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The walk stats the file, then it changes before a worker reads it:
	// the new content is stored under the old stat.
	stale := job{rel: "a.go", size: 99, mtime: 1, known: known["a.go"]}
	writeFiles(t, root, map[string]string{"a.go": "package a\n\nfunc New() {}\n"})
	u := &updater{ix: ix}
	ck := newChunker()
	defer ck.Close()
	w, err := ix.newWriter(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.put(u.process(t.Context(), ck, stale, newScratch())); err != nil {
		t.Fatal(err)
	}
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	w.close()
	// The stored stat does not match the file, so the next update reads
	// it again (and finds the content it already has).
	update(t, ix, Options{})
	if syms := symbols(t, ix); !slices.Equal(syms, []string{"a.go New"}) {
		t.Errorf("symbols %q", syms)
	}
	known, _, _ = ix.knownFiles(t.Context())
	fi, _ := os.Stat(filepath.Join(root, "a.go"))
	if known["a.go"].mtime != fi.ModTime().UnixNano() || known["a.go"].size != fi.Size() {
		t.Errorf("stored stat %+v, file %v %d", known["a.go"], fi.ModTime(), fi.Size())
	}
}

// TestCancelledUpdateLeavesConsistentIndex interrupts an index's first
// update, then an update that reads every file again (after a format
// upgrade), the way Ctrl+C does. Each leaves an index whose files have
// their chunks and whose full-text statistics count the rows it holds,
// and the next update completes it: to the same statistics as an
// uninterrupted build.
func TestCancelledUpdateLeavesConsistentIndex(t *testing.T) {
	const n = 120
	root := t.TempDir()
	files := map[string]string{}
	doc := strings.Repeat("// It does it the usual way, step by step.\n", 40)
	for i := range n {
		files[fmt.Sprintf("p%d/f%d.go", i%7, i)] = fmt.Sprintf("package p\n\n// F%d does thing %d.\n%sfunc F%d() int { return %d }\n", i, i, doc, i, i)
	}
	writeFiles(t, root, files)
	ix := openIndex(t, root)

	// interrupt cancels an update once it has stored a tenth of the
	// files, and checks what it leaves.
	interrupt := func(what string) Stats {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		st, err := ix.Update(ctx, Options{Workers: 1, reportEach: true, Progress: func(p Progress) {
			if p.Phase == PhaseChunk && p.Done >= n/10 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled %s returned %v", what, err)
		}
		var orphans int
		err = ix.db.QueryRowContext(t.Context(), `SELECT count(*) FROM files f WHERE skip = ''
			AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = f.id)`).Scan(&orphans)
		if err != nil || orphans != 0 {
			t.Errorf("%d files without chunks after cancelling the %s (%v)", orphans, what, err)
		}
		if got, want := ftsStatistics(t, ix); got != want {
			t.Errorf("after cancelling the %s, the full-text statistics count %+v; the rows hold %+v", what, got, want)
		}
		return st
	}

	interrupt("first update")
	st := update(t, ix, Options{})
	if st.Indexed == 0 || st.Indexed == n {
		t.Errorf("resumed update indexed %d of %d files; the cancelled one should have kept some", st.Indexed, n)
	}
	status, err := ix.Status(t.Context())
	if err != nil || status.Files != n || status.Chunks != 2*n {
		t.Errorf("after resuming: %+v (%v)", status, err)
	}
	built, _ := ftsStatistics(t, ix)

	markOldFormat(t, ix)
	if st := interrupt("update reading every file again"); st.Indexed == 0 {
		t.Fatalf("the cancelled update read no file again: %+v", st)
	}
	if st := update(t, ix, Options{}); st.Indexed != n {
		t.Errorf("the update after the cancelled one read %d of %d files", st.Indexed, n)
	}
	if got, _ := ftsStatistics(t, ix); got != built {
		t.Errorf("the same files after an interrupted full read: full-text statistics %+v, after the first build %+v", got, built)
	}
}

// ftsStatistics returns FTS5's totals record of ix (what bm25 reads) and
// what the rows it holds add up to.
func ftsStatistics(tb testing.TB, ix *Index) (record, rows ftsTotals) {
	tb.Helper()
	record, err := readTotals(tb.Context(), ix.db)
	if err == nil {
		rows, err = countTotals(tb.Context(), ix.db)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return record, rows
}

func TestOpenRejectsForeignAndCorruptFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, db string)
	}{
		{"garbage", func(t *testing.T, db string) {
			os.WriteFile(db, []byte(strings.Repeat("not a database\n", 1000)), 0o644)
		}},
		{"foreign sqlite", func(t *testing.T, db string) {
			ix, err := OpenAt(t.Context(), t.TempDir(), db)
			if err != nil {
				t.Fatal(err)
			}
			ix.db.Exec(`PRAGMA application_id = 42`)
			ix.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			db := filepath.Join(root, ".tern", "index.db")
			os.MkdirAll(filepath.Dir(db), 0o755)
			tt.setup(t, db)
			_, err := Open(t.Context(), root)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "delete .tern/index.db") {
				t.Errorf("Open = %v, want ErrCorrupt telling how to recover", err)
			}
		})
	}
}

func TestOpenKeepsExistingGitignore(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".tern/.gitignore": "tern.db\n"})
	openIndex(t, root)
	data, _ := os.ReadFile(filepath.Join(root, ".tern", ".gitignore"))
	if string(data) != "tern.db\n" {
		t.Errorf(".tern/.gitignore overwritten: %q", data)
	}
}

// readDir reads the files of a flat directory.
func readDir(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = string(data)
	}
	return out, nil
}
