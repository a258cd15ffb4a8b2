// Package ignore decides which files of a workspace tern leaves alone: the
// version-control directories, tern's own .tern directory, and whatever the
// repository's .gitignore files (nested ones included), .git/info/exclude
// and .ternignore files exclude, with git's precedence and negation rules.
//
// The indexer and the file tools share it, so that what the model can list
// and grep is what the index holds. It imports nothing internal.
package ignore

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// alwaysSkipped are directory names never walked into or read.
var alwaysSkipped = map[string]bool{".git": true, ".hg": true, ".svn": true, ".tern": true}

// ignoreFiles are read in every directory, later ones taking precedence.
var ignoreFiles = []string{".gitignore", ".ternignore"}

// Rules answers whether a path inside a root is ignored. Patterns are read
// lazily, once per directory, and cached; a Rules is safe for concurrent use.
//
// Patterns are kept with the depth of the directory that defines them and
// matched against the path below it, so checking a path costs one cache
// lookup per directory above it, not one per pair of them: a tree a
// thousand directories deep is walked in well under a second.
type Rules struct {
	root string

	mu   sync.Mutex
	dirs map[string][]scoped // slash-separated dir ("" = root) → its own patterns
}

// scoped is a pattern of the ignore file of a directory depth levels below
// the root, parsed relative to that directory.
type scoped struct {
	depth int
	p     gitignore.Pattern
}

// New returns the rules for the workspace at root.
func New(root string) *Rules {
	return &Rules{root: root, dirs: make(map[string][]scoped)}
}

// Root is the directory the rules are relative to.
func (r *Rules) Root() string { return r.root }

// Ignored reports whether rel (slash- or OS-separated, relative to the root)
// is ignored, either itself or because a directory above it is.
func (r *Rules) Ignored(rel string, isDir bool) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == "." || rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	var ps []scoped
	off := 0 // where parts[i] starts in rel
	for i, part := range parts {
		if alwaysSkipped[part] && (i < len(parts)-1 || isDir) {
			return true
		}
		ps = append(ps, r.patterns(rel[:max(off-1, 0)])...)
		if match(ps, parts[:i+1], isDir || i < len(parts)-1) {
			return true
		}
		off += len(part) + 1
	}
	return false
}

// match applies ps, the patterns of the directories above path, to it:
// the last pattern that matches decides, as in git.
func match(ps []scoped, path []string, isDir bool) bool {
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].p.Match(path[ps[i].depth:], isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// patterns returns the patterns that dir's own ignore files define.
func (r *Rules) patterns(dir string) []scoped {
	return r.patternsIn(dir, nil)
}

// patternsIn is patterns, reading the ignore files through d, dir opened
// as a root, when d is not nil: a walk then costs no path lookups from the
// top for each directory.
func (r *Rules) patternsIn(dir string, d *os.Root) []scoped {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ps, ok := r.dirs[dir]; ok {
		return ps
	}
	depth := 0
	if dir != "" {
		depth = strings.Count(dir, "/") + 1
	}
	var ps []scoped
	add := func(f *os.File, err error) {
		if err != nil {
			return
		}
		defer f.Close()
		if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
			return
		}
		for _, p := range readPatterns(f) {
			ps = append(ps, scoped{depth, p})
		}
	}
	if dir == "" {
		add(openNoFollow(nil, filepath.Join(r.root, ".git", "info", "exclude")))
	}
	for _, name := range ignoreFiles {
		if d != nil {
			add(openNoFollow(d, name))
		} else {
			add(openNoFollow(nil, filepath.Join(r.root, filepath.FromSlash(dir), name)))
		}
	}
	r.dirs[dir] = ps
	return ps
}

// openNoFollow opens an ignore file unless it is a symbolic link, which
// could name a file outside the workspace: name in d, or the path name
// when d is nil.
func openNoFollow(d *os.Root, name string) (*os.File, error) {
	lstat, open := os.Lstat, os.Open
	if d != nil {
		lstat, open = d.Lstat, d.Open
	}
	info, err := lstat(name)
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, fs.ErrInvalid
	}
	return open(name)
}

// Forget drops cached patterns, so edited ignore files take effect.
func (r *Rules) Forget() {
	r.mu.Lock()
	r.dirs = make(map[string][]scoped)
	r.mu.Unlock()
}

// readPatterns reads the patterns of an ignore file.
func readPatterns(f *os.File) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	return ps
}

// WalkFunc is called for every entry Walk does not skip. rel is
// slash-separated and relative to the root. Returning fs.SkipDir from a
// directory skips it, and from a file the rest of its directory; any other
// error stops the walk.
type WalkFunc func(rel string, d fs.DirEntry) error

// Walk visits the tree under dir (a path inside the rules' root) in lexical
// order, skipping ignored entries. Symbolic links are reported, never
// followed, so link cycles cannot trap it. Each directory is opened from
// its parent's descriptor (os.Root), so a directory swapped for a link
// while the walk runs cannot lead it out of the root. Unreadable
// directories are skipped. It stops early when ctx is done, returning
// ctx.Err().
func (r *Rules) Walk(ctx context.Context, dir string, fn WalkFunc) error {
	rel, err := filepath.Rel(r.root, dir)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("walk %s: outside %s", dir, r.root)
	}
	top, err := os.OpenRoot(r.root)
	if err != nil {
		return err
	}
	defer top.Close()
	start, parts, ps := top, []string(nil), r.patterns("")
	if rel != "." {
		if r.Ignored(rel, true) {
			return nil
		}
		if start, err = top.OpenRoot(filepath.FromSlash(rel)); err != nil {
			return err
		}
		defer start.Close()
		parts = strings.Split(rel, "/")
		off := 0
		for _, part := range parts {
			off += len(part) + 1
			ps = append(ps[:len(ps):len(ps)], r.patterns(rel[:off-1])...)
		}
	} else {
		rel = ""
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := start.Stat(".")
	if err != nil {
		return err
	}
	if err := fn(rel, fs.FileInfoToDirEntry(info)); err != nil {
		if err == fs.SkipDir || err == fs.SkipAll {
			return nil
		}
		return err
	}
	err = r.walk(ctx, start, rel, parts, ps, fn, true)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

// walk visits the entries of the directory d (rel; parts are its path
// elements; ps the patterns of it and the directories above it).
func (r *Rules) walk(ctx context.Context, d *os.Root, rel string, parts []string, ps []scoped, fn WalkFunc, top bool) error {
	f, err := d.Open(".")
	if err != nil {
		if top {
			return err
		}
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && top {
		return err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		name, isDir := e.Name(), e.IsDir()
		if alwaysSkipped[name] && isDir {
			continue
		}
		path := append(parts, name)
		if match(ps, path, isDir) {
			continue
		}
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		err := fn(child, e)
		if !isDir {
			if err == fs.SkipDir {
				return nil
			}
			if err != nil {
				return err
			}
			continue
		}
		if err == fs.SkipDir {
			continue
		}
		if err != nil {
			return err
		}
		sub, err := d.OpenRoot(name)
		if err != nil {
			continue // unreadable, or no longer a directory
		}
		err = r.walk(ctx, sub, child, path, append(ps[:len(ps):len(ps)], r.patternsIn(child, sub)...), fn, false)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
