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
	"io/fs"
	"os"
	"path/filepath"
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
type Rules struct {
	root string

	mu   sync.Mutex
	dirs map[string][]gitignore.Pattern // slash-separated dir ("" = root) → its own patterns
}

// New returns the rules for the workspace at root.
func New(root string) *Rules {
	return &Rules{root: root, dirs: make(map[string][]gitignore.Pattern)}
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
	for i := range parts {
		if alwaysSkipped[parts[i]] && (i < len(parts)-1 || isDir) {
			return true
		}
		if r.matches(parts[:i+1], isDir || i < len(parts)-1) {
			return true
		}
	}
	return false
}

// matches applies the patterns of every directory above path to it.
func (r *Rules) matches(path []string, isDir bool) bool {
	var ps []gitignore.Pattern
	for i := 0; i < len(path); i++ {
		ps = append(ps, r.patterns(strings.Join(path[:i], "/"))...)
	}
	return len(ps) > 0 && gitignore.NewMatcher(ps).Match(path, isDir)
}

// patterns returns the patterns that dir's own ignore files define.
func (r *Rules) patterns(dir string) []gitignore.Pattern {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ps, ok := r.dirs[dir]; ok {
		return ps
	}
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	var ps []gitignore.Pattern
	if dir == "" {
		ps = append(ps, readPatterns(filepath.Join(r.root, ".git", "info", "exclude"), nil)...)
	}
	for _, name := range ignoreFiles {
		ps = append(ps, readPatterns(filepath.Join(r.root, filepath.FromSlash(dir), name), domain)...)
	}
	r.dirs[dir] = ps
	return ps
}

// Forget drops cached patterns, so edited ignore files take effect.
func (r *Rules) Forget() {
	r.mu.Lock()
	r.dirs = make(map[string][]gitignore.Pattern)
	r.mu.Unlock()
}

func readPatterns(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil // missing or unreadable ignore files ignore nothing
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// WalkFunc is called for every entry Walk does not skip. rel is
// slash-separated and relative to the root. Returning fs.SkipDir from a
// directory skips it; any other error stops the walk.
type WalkFunc func(rel string, d fs.DirEntry) error

// Walk visits the tree under dir (a path inside the rules' root) in lexical
// order, skipping ignored entries. Symbolic links are reported, never
// followed, so link cycles cannot trap it. Unreadable directories are
// skipped. It stops early when ctx is done, returning ctx.Err().
func (r *Rules) Walk(ctx context.Context, dir string, fn WalkFunc) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir // permission denied and the like
			}
			if path == dir {
				return err
			}
			return nil
		}
		rel, relErr := filepath.Rel(r.root, path)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && r.Ignored(rel, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			rel = ""
		}
		return fn(rel, d)
	})
}
