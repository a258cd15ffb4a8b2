package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob.md
var globDoc string

// globFiles is how many matching files glob lists at most.
const globFiles = 200

type glob struct {
	Decl
	ws *Workspace
}

// NewGlob returns the glob tool: the workspace's files whose paths match a
// pattern, ** included.
func NewGlob(ws *Workspace) Tool {
	return &glob{ws: ws, Decl: Declare[globArgs]("glob", globDoc)}
}

type globArgs struct {
	Pattern string `json:"pattern" tool:"required,subject=quoted"`
	Path    string `json:"path" tool:"subject=scope"`
}

func (t *glob) Effect() Effect { return ReadOnly }

func (t *glob) Run(ctx context.Context, in Input) Result {
	var args globArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("glob: bad arguments", "%v", err)
	}
	pattern := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(args.Pattern)), "./")
	if pattern == "" {
		return fail("glob: no pattern", `pattern is required, e.g. {"pattern":"**/*.go"}`)
	}
	summary := fmt.Sprintf("glob %q", args.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return fail(summary+": bad pattern", "invalid glob pattern %q; use * within a directory and ** across directories, e.g. \"src/**/*.ts\"", args.Pattern)
	}
	dir := strings.TrimSpace(args.Path)
	if dir == "" {
		dir = "."
	}
	// Walk only below the pattern's fixed leading directories.
	if base, rest := doublestar.SplitPattern(pattern); base != "." {
		if path.IsAbs(base) {
			dir = base
		} else {
			dir = path.Join(filepath.ToSlash(dir), base)
		}
		pattern = rest
	}
	abs, rel, err := t.ws.Resolve(dir, Read)
	if err != nil {
		return fail(summary+": refused", "%v", err)
	}
	info, err := t.ws.stat(abs)
	switch {
	case errors.Is(err, ErrOutsideWorkspace):
		return fail(summary+": refused", "%v", err)
	case errors.Is(err, fs.ErrNotExist):
		return fail(summary+": not found", "%s does not exist; use list_dir to see which directories there are", rel)
	case err != nil:
		return fail(summary+": error", "cannot search %s: %v", rel, err)
	case !info.IsDir():
		return fail(summary+": not a directory", "%s is a file; path must be a directory to search in", rel)
	}
	rules, _ := t.ws.area(abs)
	base, err := filepath.Rel(rules.Root(), abs)
	if err != nil {
		return fail(summary+": error", "cannot search %s: %v", rel, err)
	}
	base = filepath.ToSlash(base)
	if rules.Ignored(base, true) {
		return fail(summary+": ignored", "%s is ignored (by .gitignore, .ternignore, or as .git or .tern); tern does not search ignored directories", rel)
	}

	var note string
	matches, err := t.match(ctx, abs, base, pattern)
	if err == nil && len(matches) == 0 && !strings.Contains(pattern, "/") {
		// "*.go" finds only the top level; the model most likely meant anywhere.
		matches, err = t.match(ctx, abs, base, "**/"+pattern)
		if len(matches) > 0 {
			note = fmt.Sprintf("(nothing matched %q directly in %s; these match \"**/%s\")\n", pattern, rel, pattern)
		}
	}
	if err != nil {
		return fail(summary+": error", "search stopped: %v", err)
	}
	if len(matches) == 0 {
		return Result{Output: fmt.Sprintf("no files match %q in %s", args.Pattern, rel), Summary: summary + " 0 files"}
	}
	slices.Sort(matches)
	var b strings.Builder
	b.WriteString(note)
	for _, m := range matches[:min(len(matches), globFiles)] {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if len(matches) > globFiles {
		fmt.Fprintf(&b, "… %d more files; narrow the pattern or the path", len(matches)-globFiles)
	}
	return Result{
		Output:  t.ws.Fit("glob", strings.TrimSuffix(b.String(), "\n"), in.Limit),
		Summary: fmt.Sprintf("%s %s", summary, plural(len(matches), "file", "files")),
	}
}

// match walks the directory abs (base relative to its rules' root) and
// returns, as the model should name them, the files whose path from abs
// matches pattern.
func (t *glob) match(ctx context.Context, abs, base, pattern string) ([]string, error) {
	rules, _ := t.ws.area(abs)
	// Without ** or braces, a pattern with n slashes matches n+1 levels only.
	deepest := -1
	if !strings.Contains(pattern, "**") && !strings.Contains(pattern, "{") {
		deepest = strings.Count(pattern, "/") + 1
	}
	var out []string
	err := rules.Walk(ctx, abs, func(rel string, d fs.DirEntry) error {
		sub := strings.TrimPrefix(strings.TrimPrefix(rel, base), "/")
		if base == "." || base == "" {
			sub = rel
		}
		if sub == "" {
			return nil
		}
		if d.IsDir() {
			if deepest >= 0 && strings.Count(sub, "/")+1 >= deepest {
				return fs.SkipDir
			}
			return nil
		}
		if ok, _ := doublestar.Match(pattern, sub); ok {
			out = append(out, t.ws.show(rules, rel))
		}
		return nil
	})
	return out, err
}
