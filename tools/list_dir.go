package tools

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ternhq/tern/index/ignore"
)

//go:embed list_dir.md
var listDirDoc string

const (
	listDirDepth    = 2   // levels shown when the model names no depth
	listDirMaxDepth = 5   // the deepest listing allowed
	listDirEntries  = 200 // entries shown at most
)

type listDir struct {
	Decl
	ws *Workspace
}

// NewListDir returns the list_dir tool: a directory as an indented tree,
// leaving out what the ignore rules exclude.
func NewListDir(ws *Workspace) Tool {
	return &listDir{ws: ws, Decl: Declare[listDirArgs]("list_dir", listDirDoc)}
}

type listDirArgs struct {
	Path  string `json:"path" tool:"subject"`
	Depth intArg `json:"depth"`
}

func (t *listDir) Effect() Effect { return ReadOnly }

func (t *listDir) Run(ctx context.Context, in Input) Result {
	var args listDirArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("list_dir: bad arguments", "%v", err)
	}
	if strings.TrimSpace(args.Path) == "" {
		args.Path = "."
	}
	depth := min(max(args.Depth.or(listDirDepth), 1), listDirMaxDepth)
	abs, rel, err := t.ws.Resolve(args.Path, Read)
	if err != nil {
		return fail("list_dir "+args.Path+": refused", "%v", err)
	}
	info, err := t.ws.stat(abs)
	switch {
	case errors.Is(err, ErrOutsideWorkspace):
		return fail("list_dir "+rel+": refused", "%v", err)
	case errors.Is(err, fs.ErrNotExist):
		return fail("list_dir "+rel+": not found", "%s does not exist; list its parent directory to see what is there", rel)
	case err != nil:
		return fail("list_dir "+rel+": error", "cannot list %s: %v", rel, err)
	case !info.IsDir():
		return fail("list_dir "+rel+": a file", "%s is a file, not a directory; use read_file to read it", rel)
	}
	rules, _ := t.ws.area(abs)
	base, err := filepath.Rel(rules.Root(), abs)
	if err != nil {
		return fail("list_dir "+rel+": error", "cannot list %s: %v", rel, err)
	}
	base = filepath.ToSlash(base)
	if rules.Ignored(base, true) {
		return fail("list_dir "+rel+": ignored", "%s is ignored (by .gitignore, .ternignore, or as .git or .tern); tern does not list ignored directories", rel)
	}

	root := &entry{name: rel, dir: true}
	// One level more than shown is read, to count what the deepest
	// directories shown hold.
	perLevel := make([]int, depth+2)
	dir, err := t.ws.openDir(abs)
	if err == nil {
		err = t.build(ctx, rules, dir, base, root, 1, depth+1, perLevel)
		dir.Close()
	}
	if err != nil {
		return fail("list_dir "+rel+": error", "cannot list %s: %v", rel, err)
	}
	// Show the deepest complete listing that fits, rather than one whose
	// first directories crowd out the rest.
	shown, total := 1, 0
	for level := 1; level <= depth; level++ {
		total += perLevel[level]
		if total <= listDirEntries {
			shown = level
		}
	}
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(rel, "/") + "/\n")
	if len(root.children) == 0 {
		b.WriteString("(empty directory)\n")
	}
	left := listDirEntries
	writeTree(&b, root, 1, shown, &left)
	if left < 0 {
		fmt.Fprintf(&b, "… %d more entries; list a subdirectory to see them\n", -left)
	}
	if shown < depth && left >= 0 {
		fmt.Fprintf(&b, "(depth %d shown: depth %d would list %d entries, over the %d cap)\n", shown, depth, total, listDirEntries)
	}
	return Result{
		Output:  t.ws.Fit("list_dir", strings.TrimSuffix(b.String(), "\n"), in.Limit),
		Summary: fmt.Sprintf("list_dir %s (%s)", rel, plural(perLevel[1], "entry", "entries")),
	}
}

// entry is one node of a listing.
type entry struct {
	name     string
	dir      bool
	link     string // a symbolic link's target
	children []*entry
	err      error
}

// build reads dir (opened as a root; rel relative to the rules' root) into
// e down to maxLevel, counting the entries of each level into perLevel.
// Each subdirectory is opened from its parent's descriptor, so none can
// lead out of the workspace.
func (t *listDir) build(ctx context.Context, rules *ignore.Rules, dir *os.Root, rel string, e *entry, level, maxLevel int, perLevel []int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	des, err := readDir(dir)
	if err != nil {
		if level == 1 {
			return err
		}
		e.err = err
		return nil
	}
	for _, de := range des {
		child := path.Join(rel, de.Name())
		isDir := de.IsDir()
		if rules.Ignored(child, isDir) {
			continue
		}
		c := &entry{name: de.Name(), dir: isDir}
		if de.Type()&fs.ModeSymlink != 0 {
			c.link, _ = dir.Readlink(de.Name())
		}
		e.children = append(e.children, c)
	}
	slices.SortFunc(e.children, func(a, b *entry) int {
		if a.dir != b.dir {
			if a.dir {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.name, b.name)
	})
	perLevel[level] += len(e.children)
	if level == maxLevel {
		return nil
	}
	for _, c := range e.children {
		if c.dir {
			sub, err := dir.OpenRoot(c.name)
			if err != nil {
				c.err = err
				continue
			}
			err = t.build(ctx, rules, sub, path.Join(rel, c.name), c, level+1, maxLevel, perLevel)
			sub.Close()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// writeTree writes e's children down to maxLevel, indented two spaces a
// level, while left allows; left goes negative by the entries not written.
func writeTree(b *strings.Builder, e *entry, level, maxLevel int, left *int) {
	for _, c := range e.children {
		if *left--; *left < 0 {
			continue
		}
		b.WriteString(strings.Repeat("  ", level-1))
		b.WriteString(shownName(c.name))
		switch {
		case c.link != "":
			b.WriteString(" -> " + shownName(c.link))
		case c.dir && c.err != nil:
			b.WriteString("/ (unreadable)")
		case c.dir && len(c.children) == 0:
			b.WriteString("/ (empty)")
		case c.dir && level == maxLevel:
			fmt.Fprintf(b, "/ (%s)", plural(len(c.children), "entry", "entries"))
		case c.dir:
			b.WriteByte('/')
		}
		b.WriteByte('\n')
		if c.dir && level < maxLevel {
			writeTree(b, c, level+1, maxLevel, left)
		}
	}
}

// readDir lists the directory d.
func readDir(d *os.Root) ([]fs.DirEntry, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
